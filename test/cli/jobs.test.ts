// `parla jobs ...` and `parla transcribe --async` as a user runs them, against a real Parla server
// (its runner, real recognition) started here, with a local HTTP server as the audio source.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startServer, type RunningServer } from '../../src/server.js';
import { createAccountWithKey } from '../../src/accounts/admin.js';
import { tempDir, testConfig } from '../helpers/env.js';
import { flite, librivox, soxConcat } from '../helpers/speech.js';
import { parlaArgs } from '../helpers/parla-command.js';

const tmp = tempDir();
let server: RunningServer;
let audio: http.Server;
let audioBase: string;
let env: NodeJS.ProcessEnv;
const fox = flite('The quick brown fox jumps over the lazy dog.');

before(async () => {
  audio = http.createServer((req, res) => {
    if (req.url === '/fox.wav') return void res.writeHead(200, { 'content-type': 'audio/wav' }).end(readFileSync(fox));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => audio.listen(0, '127.0.0.1', r));
  audioBase = `http://127.0.0.1:${(audio.address() as AddressInfo).port}`;
  server = await startServer(
    testConfig({ PORT: '0', REALTIME_PORT: '0', PARLA_FETCH_ALLOW_PRIVATE: 'true', PARLA_JOB_CONCURRENCY: '1' }, tmp.dir),
  );
  const { rawKey } = await createAccountWithKey(server.services.store, server.services.config, {
    name: 'cli-jobs',
    plan: 'pro',
    keyName: 'cli',
    credits: 1_000_000,
  });
  env = { ...process.env, PARLA_API_KEY: rawKey, PARLA_URL: server.url, LOG_LEVEL: 'silent' };
});
after(async () => {
  await server.stop();
  audio.close();
  tmp.cleanup();
});

// The server runs in this process, so the CLI must run asynchronously (a sync spawn would block it).
async function parla(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, parlaArgs(args), { env, encoding: 'utf8' });
    return { code: 0, out: stdout, err: stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

async function finished(id: string): Promise<any> {
  for (let i = 0; i < 240; i++) {
    const got = await parla('jobs', 'get', id, '--json');
    assert.equal(got.code, 0, got.err);
    const job = JSON.parse(got.out);
    if (['completed', 'failed', 'canceled'].includes(job.status)) return job;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`job ${id} did not finish`);
}

test('transcribe --async prints the job id; jobs get shows it; jobs result prints the transcript', async () => {
  const made = await parla('transcribe', fox, '--async', '--format', 'vtt');
  assert.equal(made.code, 0, made.err);
  const id = made.out.trim();
  assert.match(id, /^job_[A-Za-z0-9]{20}$/, 'only the id on stdout');
  assert.match(made.err, new RegExp(`job ${id}: parla jobs get ${id}`));

  const job = await finished(id);
  assert.equal(job.status, 'completed', JSON.stringify(job.error));
  assert.equal(job.response_format, 'vtt');
  assert.deepEqual(job.source, { type: 'upload', filename: path.basename(fox), bytes: readFileSync(fox).length });

  const human = await parla('jobs', 'get', id);
  assert.equal(human.code, 0, human.err);
  assert.match(human.out, new RegExp(`^id:\\s+${id}$`, 'm'));
  assert.match(human.out, /^status:\s+completed$/m);
  assert.match(human.out, /^progress:\s+100%$/m);
  assert.match(human.out, /^credits:\s+\d+$/m);

  const result = await parla('jobs', 'result', id);
  assert.equal(result.code, 0, result.err);
  assert.match(result.out, /^WEBVTT\n/);
  assert.match(result.out.toLowerCase(), /fox|dog|quick/);
  const out = path.join(tmp.dir, 'fox.vtt');
  assert.equal((await parla('jobs', 'result', id, '-o', out)).code, 0);
  assert.equal(readFileSync(out, 'utf8'), result.out);
});

test('transcribe --async --wait prints the result like the synchronous transcribe', async () => {
  const res = await parla('transcribe', fox, '--async', '--wait', '--format', 'text', '--model', 'cipher-max');
  assert.equal(res.code, 0, res.err);
  assert.match(res.out.toLowerCase(), /fox|dog|quick/);
  assert.doesNotMatch(res.out, /job_/);
  const sync = await parla('transcribe', fox, '--format', 'text', '--model', 'cipher-max');
  assert.equal(res.out, sync.out, 'the same transcript as the synchronous request');
});

test('jobs create from a URL with --wait --json; an Idempotency-Key answers the same job', async () => {
  const res = await parla(
    'jobs',
    'create',
    `${audioBase}/fox.wav`,
    '--wait',
    '--json',
    '--format',
    'json',
    '--diarize',
    '--keywords',
    'fox,dog',
  );
  assert.equal(res.code, 0, res.err);
  const job = JSON.parse(res.out);
  assert.equal(job.status, 'completed');
  assert.deepEqual(job.source, { type: 'url', url: `${audioBase}/fox.wav` });
  assert.match(job.result.text.toLowerCase(), /fox|dog/);

  const kept = await parla('jobs', 'create', '--audio-url', `${audioBase}/fox.wav`, '--zero-retention', '--wait', '--json');
  assert.equal(kept.code, 0, kept.err);
  const keptJob = JSON.parse(kept.out);
  assert.equal(keptJob.zero_retention, true);
  assert.equal(keptJob.status, 'completed');
  const none = await parla('jobs', 'result', keptJob.id);
  assert.equal(none.code, 1);
  assert.match(none.err, /^parla: NOT_FOUND: .*zero_retention/);

  const a = await parla('jobs', 'create', '--audio-url', `${audioBase}/fox.wav`, '--idempotency-key', 'cli-key-1', '--json');
  const b = await parla('jobs', 'create', '--audio-url', `${audioBase}/fox.wav`, '--idempotency-key', 'cli-key-1', '--json');
  assert.equal(a.code, 0, a.err);
  assert.equal(JSON.parse(b.out).id, JSON.parse(a.out).id);
  const reused = await parla('jobs', 'create', '--audio-url', `${audioBase}/fox.wav`, '--format', 'srt', '--idempotency-key', 'cli-key-1');
  assert.equal(reused.code, 1);
  assert.match(reused.err, /^parla: IDEMPOTENCY_KEY_REUSED: /);
  await finished(JSON.parse(a.out).id);
});

test("jobs list: a table newest first, --limit with the next page's command, --status, --json", async () => {
  const all = JSON.parse((await parla('jobs', 'list', '--json')).out);
  assert.ok(all.jobs.length >= 4);
  const page = await parla('jobs', 'list', '--limit', '2');
  assert.equal(page.code, 0, page.err);
  const lines = page.out.trim().split('\n');
  assert.match(lines[0]!, /^ID\s+STATUS\s+MODEL\s+CREATED\s+PROGRESS\s+CREDITS$/);
  assert.deepEqual(
    lines.slice(1).map((l) => l.split(/\s+/)[0]),
    all.jobs.slice(0, 2).map((j: any) => j.id),
  );
  const more = /^more: parla jobs list --cursor (\S+) --limit 2$/m.exec(page.err);
  assert.ok(more, page.err);
  const next = JSON.parse((await parla('jobs', 'list', '--limit', '2', '--cursor', more[1]!, '--json')).out);
  assert.deepEqual(
    next.jobs.map((j: any) => j.id),
    all.jobs.slice(2, 4).map((j: any) => j.id),
  );
  const completed = JSON.parse((await parla('jobs', 'list', '--status', 'completed', '--json')).out);
  assert.ok(completed.jobs.length >= 3 && completed.jobs.every((j: any) => j.status === 'completed'));
  const none = await parla('jobs', 'list', '--status', 'canceled');
  assert.equal(none.out.trim(), 'no jobs');
});

test("jobs cancel stops a queued job; errors exit 1 with the API's code, bad arguments 2", async () => {
  // One job at a time: the long one (about two minutes of speech) runs while the next waits, even
  // through the few seconds each CLI call takes here.
  const long = soxConcat(Array(16).fill(librivox()[0]!.file));
  const first = (await parla('jobs', 'create', long)).out.trim();
  const second = (await parla('jobs', 'create', fox)).out.trim();
  const canceled = await parla('jobs', 'cancel', second);
  assert.equal(canceled.code, 0, canceled.err);
  assert.equal(canceled.out.trim(), `${second} canceled`);
  assert.equal(JSON.parse((await parla('jobs', 'cancel', first, '--json')).out).status, 'canceled');

  const result = await parla('jobs', 'result', second);
  assert.equal(result.code, 1);
  assert.match(result.err, /^parla: NOT_FOUND: .*canceled/);
  const missing = await parla('jobs', 'get', 'job_AAAAAAAAAAAAAAAAAAAA');
  assert.equal(missing.code, 1);
  assert.match(missing.err, /^parla: NOT_FOUND: /);
  const badUrl = await parla('jobs', 'create', 'https://user:pw@example.com/a.wav');
  assert.equal(badUrl.code, 1);
  assert.match(badUrl.err, /^parla: URL_NOT_ALLOWED: /);

  for (const args of [
    ['jobs'],
    ['jobs', 'create'],
    ['jobs', 'create', fox, '--audio-url', `${audioBase}/fox.wav`],
    ['jobs', 'list', '--status', 'done'],
    ['jobs', 'list', '--limit', '0'],
    ['jobs', 'get'],
    ['jobs', 'create', fox, '-o', 'x.txt'],
    ['transcribe', fox, '--wait'],
    ['jobs', 'frobnicate'],
  ]) {
    const r = await parla(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
  }
});

test("transcribe --async --wait on a job that fails exits 1 with the job's error", async () => {
  const notAudio = path.join(tmp.dir, 'not-audio.wav');
  (await import('node:fs')).writeFileSync(notAudio, 'this is plain text, not a recording');
  const res = await parla('transcribe', notAudio, '--async', '--wait');
  assert.equal(res.code, 1);
  assert.match(res.err, /^parla: INVALID_AUDIO: job job_[A-Za-z0-9]{20} failed: /m);
});
