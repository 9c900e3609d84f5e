// The client SDK and the `parla` client commands against a real Parla server started here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { ParlaClient, ParlaError } from '../../packages/client/src/index.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createAccountWithKey } from '../../src/accounts/admin.js';
import { tempDir, testConfig } from '../helpers/env.js';
import { flite } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { parlaArgs } from '../helpers/parla-command.js';

const tmp = tempDir();
let server: RunningServer;
let client: ParlaClient;
let apiKey: string;

before(async () => {
  server = await startServer(testConfig({ PORT: '0', REALTIME_PORT: '0' }, tmp.dir));
  ({ rawKey: apiKey } = await createAccountWithKey(server.services.store, server.services.config, {
    name: 'sdk',
    plan: 'pro',
    keyName: 'sdk',
    credits: 1_000_000,
  }));
  client = new ParlaClient({
    apiKey,
    baseUrl: server.url,
    realtimeUrl: server.realtimeUrl.replace(/\/api\/v1\/.*$/, ''),
    realtimeTls: { ca: server.realtime.cert },
  });
});
after(async () => {
  await server.stop();
  tmp.cleanup();
});

test('catalogue, account and health methods', async () => {
  assert.equal((await client.health()).status, 'healthy');
  const models = await client.models.list();
  assert.equal(models.length, 5);
  assert.equal((await client.languages.list({ model: 'rapid-flash' })).total, 17); // the spec's 18 less Thai (decision #41)
  const shapes = await Promise.all([
    client.voices.list({ model: 'rapid-flash' }),
    client.voices.list({ model: 'aura-prime', language: 'de' }),
    client.voices.list({ language: 'fr' }),
    client.voices.list(),
  ]);
  assert.deepEqual(
    shapes.map((s) => s.shape),
    ['flash', 'aura', 'basic', 'extended'],
  );
  const aura = shapes[1];
  assert.ok(aura.shape === 'aura' && aura.voices[0]!.name === 'Anna');
  assert.equal((await client.usage.get()).plan, 'pro');
  assert.ok((await client.credits.get()).credits > 0);
});

test('tts.generate returns the audio and the response metadata; errors are ParlaErrors', async () => {
  const res = await client.tts.generate({ text: 'Hello from the client.', voice: 'Aria', format: 'mp3' });
  assert.equal(res.contentType, 'audio/mpeg');
  assert.ok(res.audio.byteLength > 1000);
  assert.match(res.requestId!, /^req_/);
  assert.equal(res.creditsUsed, 22);
  assert.ok(res.creditsRemaining! > 0);
  assert.ok(res.processingTimeMs! >= 0);
  assert.match(res.fileName!, /\.mp3$/);
  await assert.rejects(
    client.tts.generate({ text: 'x', voice: 'Nobody' }),
    (e: ParlaError) =>
      e instanceof ParlaError &&
      e.status === 400 &&
      e.code === 'INVALID_VOICE' &&
      e.category === 'validation' &&
      /^req_/.test(e.requestId!),
  );
});

test('tts.generateWithTimestamps returns the decoded file and its words', async () => {
  const res = await client.tts.generateWithTimestamps({ text: 'Hello from the client.', voice: 'Aria' });
  assert.equal(res.format, 'wav');
  assert.equal(Buffer.from(res.audio.subarray(0, 4)).toString('latin1'), 'RIFF');
  assert.equal(decodeWav(res.audio).channels[0]!.length / res.sampleRate, res.duration);
  assert.deepEqual(
    res.words.map((w) => w.word),
    ['Hello', 'from', 'the', 'client'],
  );
  assert.ok(res.words.every((w, i) => w.end > w.start && (i === 0 || w.start >= res.words[i - 1]!.end)));
  assert.equal(res.creditsUsed, 22);
  assert.ok(res.creditsRemaining! > 0);
  assert.match(res.requestId!, /^req_/);
  await assert.rejects(
    client.tts.generateWithTimestamps({ text: 'x', voice: 'Nobody' }),
    (e: ParlaError) => e instanceof ParlaError && e.code === 'INVALID_VOICE',
  );
});

test('tts.stream yields PCM chunks at the stated rate', async () => {
  const s = await client.tts.stream({ text: 'One sentence. Another sentence.', voice: 'Aria', sample_rate: 16000 });
  assert.equal(s.sampleRate, 16000);
  let bytes = 0;
  let chunks = 0;
  for await (const c of s.chunks) {
    bytes += c.byteLength;
    chunks++;
  }
  assert.ok(chunks >= 1 && bytes / 32000 > 1, `${bytes} bytes`);
});

test('stt methods take a path, a Buffer, a Blob or a stream, typed by response_format', async () => {
  const file = flite('The client sends this sentence.');
  const fromPath = await client.stt.transcribe(file);
  assert.match(fromPath.text.toLowerCase(), /sentence/);
  assert.equal(fromPath.provider, 'cipher');
  const srt: string = await client.stt.cipher(readFileSync(file), { response_format: 'srt' });
  assert.match(srt, /-->/);
  const verbose = await client.stt.cipher(new Blob([readFileSync(file)]), {
    response_format: 'verbose_json',
    timestamp_granularities: 'word',
  });
  assert.ok(verbose.segments.length >= 1 && (verbose.words?.length ?? 0) >= 3);
  const lucid = await client.stt.lucid(createReadStream(file), { model: 'lucid-mono', diarize: true });
  assert.ok(lucid.words?.every((w) => w.speaker === 0));
  await assert.rejects(client.stt.lucid(file, { model: 'cipher-fast' }), (e: ParlaError) => e.code === 'INVALID_MODEL');
  const lucidVtt: string = await client.stt.lucid(file, { response_format: 'vtt' });
  assert.match(lucidVtt, /^WEBVTT\n/);
});

test('realtime.connect streams audio and delivers typed final results and the summary', async () => {
  const wav = decodeWav(readFileSync(flite('Testing the live connection now.')));
  const pcm = float32ToInt16(wav.channels[0]!);
  const live = await client.realtime.connect({ sample_rate: 16000, interim_results: true });
  const finals: string[] = [];
  live.on('final', (r) => r.transcript && finals.push(r.transcript));
  for (let i = 0; i < pcm.length; i += 1600)
    live.write(new Uint8Array(pcm.buffer, pcm.byteOffset + i * 2, Math.min(1600, pcm.length - i) * 2));
  live.finalize();
  const summary = await live.close();
  assert.ok(summary && (summary.credits_used as number) > 0);
  assert.match(finals.join(' ').toLowerCase(), /connection|live|testing/);
});

test('realtime.connect finds the socket through GET /stt/realtime/info (not a fixed port 8443)', async () => {
  const { PARLA_REALTIME_URL: _unset, ...env } = process.env;
  const saved = process.env;
  process.env = env;
  try {
    const discovering = new ParlaClient({ apiKey, baseUrl: server.url, realtimeTls: { ca: server.realtime.cert } });
    assert.equal(discovering.realtimeUrl, null);
    const port = Number(new URL(server.realtimeUrl).port);
    assert.notEqual(port, 8443);
    const info = await discovering.stt.realtimeInfo();
    assert.equal(info.port, port);
    const live = await discovering.realtime.connect({ sample_rate: 16000 });
    const summary = await live.close();
    assert.ok(summary);

    const untrusting = new ParlaClient({ apiKey, baseUrl: server.url });
    await assert.rejects(
      untrusting.realtime.connect({ sample_rate: 16000 }),
      (e: ParlaError) =>
        e.code === 'TLS_UNTRUSTED_CERTIFICATE' &&
        /self[- ]signed/.test(e.message) &&
        /realtimeTls: \{ ca \}/.test(e.resolution) &&
        /data\/tls\/realtime-cert\.pem/.test(e.resolution),
    );
  } finally {
    process.env = saved;
  }
});

// The server runs in this process, so the CLI must run asynchronously (a sync spawn would block it).
async function parla(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, parlaArgs(args), { env, encoding: 'utf8' });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

test('the parla command as a new user: say to a file, transcribe it back', async () => {
  const env = { ...process.env, PARLA_API_KEY: apiKey, PARLA_URL: server.url, LOG_LEVEL: 'silent' };
  const out = path.join(tmp.dir, 'hello.mp3');
  const say = await parla(['say', 'Good evening and welcome to the show.', '-o', out, '--voice', 'Orion'], env);
  assert.equal(say.status, 0, say.stderr);
  assert.match(say.stderr, /wrote .*hello\.mp3/);
  const tr = await parla(['transcribe', out, '--format', 'text'], env);
  assert.equal(tr.status, 0, tr.stderr);
  assert.match(tr.stdout.toLowerCase(), /evening|welcome|show/);
  const bad = await parla(['say', 'hi', '--voice', 'Nobody', '-o', out], env);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /INVALID_VOICE: .*GET \/api\/v1\/voices/);
});
