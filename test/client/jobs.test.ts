// The SDK's jobs methods against a real Parla server (its runner, real recognition), with a local
// HTTP server as the audio source and, for the retry case, a proxy in front of Parla that loses
// the first answer to a job creation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ParlaClient, ParlaError, type Job } from '../../packages/client/src/index.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createAccountWithKey } from '../../src/accounts/admin.js';
import { tempDir, testConfig } from '../helpers/env.js';
import { flite, librivox, soxConcat } from '../helpers/speech.js';

const tmp = tempDir();
let server: RunningServer;
let client: ParlaClient;
let apiKey: string;
let audio: http.Server;
let audioBase: string;
const fox = flite('The quick brown fox jumps over the lazy dog.');
// About a minute of speech: with one job at a time, what is queued behind it stays queued a while.
const long = soxConcat(Array(8).fill(librivox()[0]!.file));

before(async () => {
  audio = http.createServer((req, res) => {
    if (req.url === '/fox.wav') return void res.writeHead(200, { 'content-type': 'audio/wav' }).end(readFileSync(fox));
    if (req.url === '/not-audio') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('only text, no audio here');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => audio.listen(0, '127.0.0.1', r));
  audioBase = `http://127.0.0.1:${(audio.address() as AddressInfo).port}`;
  server = await startServer(
    testConfig({ PORT: '0', REALTIME_PORT: '0', PARLA_FETCH_ALLOW_PRIVATE: 'true', PARLA_JOB_CONCURRENCY: '1' }, tmp.dir),
  );
  ({ rawKey: apiKey } = await createAccountWithKey(server.services.store, server.services.config, {
    name: 'sdk-jobs',
    plan: 'pro',
    keyName: 'sdk',
    credits: 1_000_000,
  }));
  client = new ParlaClient({ apiKey, baseUrl: server.url });
});
after(async () => {
  await server.stop();
  audio.close();
  tmp.cleanup();
});

test("jobs.create from a file, wait, result in the job's format (srt), get", async () => {
  const created = await client.jobs.create({ file: fox, response_format: 'srt', model: 'cipher-fast' });
  assert.match(created.id, /^job_[A-Za-z0-9]{20}$/);
  assert.ok(created.status === 'queued' || created.status === 'running', created.status);
  assert.deepEqual(created.source, { type: 'upload', filename: path.basename(fox), bytes: readFileSync(fox).length });
  assert.equal(created.response_format, 'srt');
  const polls: string[] = [];
  const done = await client.jobs.wait(created.id, { intervalMs: 200, timeoutMs: 120_000, onPoll: (j) => polls.push(j.status) });
  assert.equal(done.status, 'completed', JSON.stringify(done.error));
  assert.equal(polls.at(-1), 'completed');
  assert.equal(done.progress, 1);
  assert.ok((done.credits_used ?? 0) > 0);
  const srt = await client.jobs.result(created.id, { response_format: 'srt' });
  assert.equal(typeof srt, 'string');
  assert.match(srt, /^1\n\d\d:\d\d:\d\d,\d{3} --> /);
  assert.match(srt.toLowerCase(), /fox|dog|quick/);
  const again = await client.jobs.get(created.id);
  assert.equal(again.id, created.id);
  assert.equal(again.status, 'completed');
});

test('jobs.create from a URL (JSON body), every batch field; result() parses JSON', async () => {
  const job = await client.jobs.create({
    url: `${audioBase}/fox.wav`,
    model: 'lucid-mono',
    language: 'en',
    diarize: true,
    keywords: ['fox', 'dog'],
    smart_format: true,
    punctuate: true,
  });
  assert.deepEqual(job.source, { type: 'url', url: `${audioBase}/fox.wav` });
  assert.equal(job.model, 'lucid-mono');
  const done = await client.jobs.wait(job.id, { intervalMs: 200, timeoutMs: 120_000 });
  assert.equal(done.status, 'completed', JSON.stringify(done.error));
  const result = await client.jobs.result(job.id);
  assert.ok(typeof result === 'object' && result !== null && 'text' in result, JSON.stringify(result));
  assert.match((result as { text: string }).text.toLowerCase(), /fox|dog/);
  // Diarized: every word has its speaker.
  assert.ok((result as { words?: Array<{ speaker?: number }> }).words?.every((w) => w.speaker === 0));
});

test("a job that fails is returned by wait() with the API's error; result() is NOT_FOUND", async () => {
  const job = await client.jobs.create({ url: `${audioBase}/not-audio` });
  const done = await client.jobs.wait(job.id, { intervalMs: 200, timeoutMs: 120_000 });
  assert.equal(done.status, 'failed');
  assert.equal(done.error?.code, 'INVALID_AUDIO');
  await assert.rejects(
    client.jobs.result(job.id),
    (e: ParlaError) => e instanceof ParlaError && e.status === 404 && e.code === 'NOT_FOUND' && /failed/.test(e.message),
  );
});

test('Idempotency-Key: the same key and body answer the same job; another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
  const key = `sdk-test-${Date.now()}`;
  const a = await client.jobs.create({ url: `${audioBase}/fox.wav`, idempotencyKey: key });
  const b = await client.jobs.create({ url: `${audioBase}/fox.wav`, idempotencyKey: key });
  assert.equal(b.id, a.id);
  await assert.rejects(
    client.jobs.create({ url: `${audioBase}/fox.wav`, response_format: 'srt', idempotencyKey: key }),
    (e: ParlaError) => e.status === 409 && e.code === 'IDEMPOTENCY_KEY_REUSED',
  );
  await client.jobs.wait(a.id, { intervalMs: 200, timeoutMs: 120_000 });
});

test('a create whose answer is lost is retried with the same Idempotency-Key: one job, not two', async () => {
  // A proxy that forwards everything to Parla, but answers the first job creation with a 503
  // after Parla has made the job: the client retries, and must get that same job back.
  const seen: string[] = [];
  let lost = false;
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST') seen.push(String(req.headers['idempotency-key']));
      const fwd = http.request(new URL(req.url!, server.url), { method: req.method, headers: req.headers }, (up) => {
        const body: Buffer[] = [];
        up.on('data', (c: Buffer) => body.push(c));
        up.on('end', () => {
          if (req.method === 'POST' && !lost) {
            lost = true;
            return void res
              .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
              .end(JSON.stringify({ success: false, error: { code: 'SERVICE_OVERLOADED', message: 'lost on the way' } }));
          }
          res.writeHead(up.statusCode!, up.headers).end(Buffer.concat(body));
        });
      });
      fwd.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  try {
    const viaProxy = new ParlaClient({
      apiKey,
      baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      retry: { baseDelayMs: 10 },
    });
    const before = (await client.jobs.list({ limit: 100 })).jobs.length;
    const retries: number[] = [];
    const job = await viaProxy.jobs.create({ file: fox, onRetry: (a) => retries.push(a) });
    assert.deepEqual(retries, [1]);
    assert.equal(seen.length, 2);
    assert.equal(seen[0], seen[1], 'the retry sent the same Idempotency-Key');
    assert.match(seen[0]!, /^parla-client-[0-9a-f-]{36}$/);
    const after = (await client.jobs.list({ limit: 100 })).jobs;
    assert.equal(after.length, before + 1, 'exactly one job was made');
    assert.equal(after[0]!.id, job.id);
    await client.jobs.wait(job.id, { intervalMs: 200, timeoutMs: 120_000 });
  } finally {
    proxy.close();
  }
});

test('list pages newest first with next_cursor and a status filter; iterate() walks every page', async () => {
  const all: Job[] = [];
  for await (const j of client.jobs.iterate({ limit: 2 })) all.push(j);
  assert.ok(all.length >= 5, `${all.length} jobs`);
  assert.equal(new Set(all.map((j) => j.id)).size, all.length, 'no job twice');
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.created_at >= all[i]!.created_at, 'newest first');
  const first = await client.jobs.list({ limit: 2 });
  assert.equal(first.jobs.length, 2);
  assert.ok(first.next_cursor);
  const second = await client.jobs.list({ limit: 2, cursor: first.next_cursor! });
  assert.deepEqual(
    [...first.jobs, ...second.jobs].map((j) => j.id),
    all.slice(0, 4).map((j) => j.id),
  );
  const failed = await client.jobs.list({ status: 'failed' });
  assert.ok(failed.jobs.length >= 1 && failed.jobs.every((j) => j.status === 'failed'));
  assert.equal(failed.next_cursor, null);
  await assert.rejects(client.jobs.list({ cursor: 'not-a-cursor' }), (e: ParlaError) => e.status === 400 && e.code === 'INVALID_PARAMETER');
});

test('cancel a queued job; wait() on it ends canceled; wait() gives up with TIMEOUT; unknown ids are NOT_FOUND', async () => {
  // One job at a time: the long one runs while the next waits in the queue.
  const running = await client.jobs.create({ file: long });
  const queued = await client.jobs.create({ file: fox });
  await assert.rejects(
    client.jobs.wait(queued.id, { intervalMs: 50, timeoutMs: 200 }),
    (e: ParlaError) => e.code === 'TIMEOUT' && e.details.job_id === queued.id,
  );
  // A signal stops the waiting (not the job).
  await assert.rejects(
    client.jobs.wait(queued.id, { intervalMs: 50, signal: AbortSignal.timeout(150) }),
    (e: Error) => e.name === 'TimeoutError',
  );
  assert.equal((await client.jobs.get(queued.id)).status, 'queued');
  const canceled = await client.jobs.cancel(queued.id);
  assert.equal(canceled.status, 'canceled');
  assert.equal((await client.jobs.wait(queued.id)).status, 'canceled');
  const stopped = await client.jobs.cancel(running.id);
  assert.equal(stopped.status, 'canceled');
  await assert.rejects(client.jobs.get('job_AAAAAAAAAAAAAAAAAAAA'), (e: ParlaError) => e.status === 404 && e.code === 'NOT_FOUND');
  await assert.rejects(client.jobs.cancel('nope'), (e: ParlaError) => e.status === 404 && e.code === 'NOT_FOUND');
});

test('create checks its input before sending: exactly one of file and url; the server refuses a bad URL', async () => {
  await assert.rejects(client.jobs.create({}), (e: ParlaError) => e.code === 'INVALID_REQUEST' && e.status === 0);
  await assert.rejects(client.jobs.create({ file: fox, url: `${audioBase}/fox.wav` }), (e: ParlaError) => e.code === 'INVALID_REQUEST');
  await assert.rejects(
    client.jobs.create({ url: 'ftp://example.com/a.wav' }),
    (e: ParlaError) => e.status === 400 && e.code === 'URL_NOT_ALLOWED',
  );
  await assert.rejects(
    client.jobs.create({ url: `${audioBase}/fox.wav`, idempotencyKey: 'k'.repeat(256) }),
    (e: ParlaError) => e.status === 400 && e.code === 'INVALID_PARAMETER',
  );
});
