// `parla listen` as a new user runs it against a server whose real-time socket is not on 8443:
// it finds the socket through the info endpoint, trusts the self-signed certificate given with
// --ca, and without it says how to trust it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { startServer, type RunningServer } from '../../src/server.js';
import { createAccountWithKey } from '../../src/accounts/admin.js';
import { tempDir, testConfig } from '../helpers/env.js';
import { ffmpegConvert, flite } from '../helpers/speech.js';
import { parlaArgs } from '../helpers/parla-command.js';

const tmp = tempDir();
let server: RunningServer;
let env: NodeJS.ProcessEnv;

before(async () => {
  server = await startServer(testConfig({}, tmp.dir));
  const { rawKey } = await createAccountWithKey(server.services.store, server.services.config, {
    name: 'cli',
    plan: 'pro',
    keyName: 'cli',
    credits: 100_000,
  });
  const { PARLA_REALTIME_URL: _a, PARLA_REALTIME_CA: _b, ...rest } = process.env;
  env = { ...rest, PARLA_API_KEY: rawKey, PARLA_URL: server.url, LOG_LEVEL: 'silent' };
});
after(async () => {
  await server.stop();
  tmp.cleanup();
});

// The server runs in this process, so the CLI must run asynchronously.
async function parla(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, parlaArgs(args), {
      env: { ...env, ...extraEnv },
      encoding: 'utf8',
    });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

test('parla listen finds the socket from the server and trusts its certificate with --ca (or PARLA_REALTIME_CA)', async () => {
  assert.notEqual(new URL(server.realtimeUrl).port, '8443');
  const wav = flite('The weather is lovely today.');
  const cert = path.join(tmp.dir, 'tls', 'realtime-cert.pem');
  const withCa = await parla(['listen', wav, '--fast', '--ca', cert]);
  assert.equal(withCa.status, 0, withCa.stderr);
  assert.match(withCa.stdout.toLowerCase(), /weather|lovely|today/);
  const fromEnv = await parla(['listen', wav, '--fast', '--quiet'], { PARLA_REALTIME_CA: cert });
  assert.equal(fromEnv.status, 0, fromEnv.stderr);

  const untrusted = await parla(['listen', wav, '--fast']);
  assert.equal(untrusted.status, 1);
  assert.match(untrusted.stderr, /TLS_UNTRUSTED_CERTIFICATE: .*self[- ]signed/);
  assert.match(untrusted.stderr, /--ca FILE/);
  assert.match(untrusted.stderr, /data\/tls\/realtime-cert\.pem/);

  const missing = await parla(['listen', wav, '--ca', path.join(tmp.dir, 'nope.pem')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read the CA certificate/);
});

/** parla with `input` piped to its stdin. */
function parlaStdin(args: string[], input: Buffer): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, parlaArgs(args), { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

test('parla listen - : a WAV, Ogg/Opus or MP3 piped on stdin is detected and decoded; raw PCM still streams', async () => {
  const cert = path.join(tmp.dir, 'tls', 'realtime-cert.pem');
  const wav = flite('The weather is lovely today.');
  const files = [wav, ffmpegConvert(wav, 'ogg', ['-c:a', 'libopus']), ffmpegConvert(wav, 'mp3')];
  for (const file of files) {
    const r = await parlaStdin(['listen', '-', '--fast', '--ca', cert], readFileSync(file));
    assert.equal(r.status, 0, `${file}: ${r.stderr}`);
    assert.match(r.stdout.toLowerCase(), /weather|lovely|today/, `${file}: ${r.stdout}`);
  }
  // The same speech as raw PCM (the WAV's data): streamed as before.
  const raw = readFileSync(wav).subarray(44);
  const r = await parlaStdin(['listen', '-', '--fast', '--ca', cert], raw);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout.toLowerCase(), /weather|lovely|today/);
  // A file that is not audio after its signature: a usage error, not a garbage transcript.
  const broken = await parlaStdin(['listen', '-', '--fast', '--ca', cert], Buffer.concat([Buffer.from('OggS'), Buffer.alloc(5000, 7)]));
  assert.equal(broken.status, 2, broken.stderr);
  assert.match(broken.stderr, /ogg audio on stdin could not be decoded/);
});
