// The jobs API end to end on one queue kind (SQLite or PostgreSQL): the real app, the real
// runner and webhook dispatcher, real recognition, a local HTTP server as the audio source and as
// the webhook receiver. jobs-api-sqlite.test.ts and jobs-api-postgres.test.ts run it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, librivox, soxConcat, wordErrorRate } from '../helpers/speech.js';
import { hourOfFlac } from '../hostile/decode-corpus.js';
import { startJobWork, type JobWork } from '../../src/background-jobs.js';
import { fetchPolicy, jobsDir } from '../../src/jobs/settings.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { verifyWebhookSignature } from '../../src/jobs/webhook-signature.js';
import { paramsOf } from '../../src/jobs/job-params.js';
import { parseSttFields } from '../../src/stt/request.js';

/** The jobs' size limit in these tests (the 40 s recording is about 1.3 MB). */
const MAX_BYTES = 2_000_000;

interface Hook {
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function jobsApiSuite(env: () => Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>): void {
  let t: TestApp;
  let work: JobWork;
  let key: string;
  let accountId: string;
  let otherKey: string;
  let source: http.Server;
  let base: string;
  let cleanup: () => Promise<void>;
  const hooks: Hook[] = [];
  let hookFailuresLeft = 0;
  const fox = flite('The quick brown fox jumps over the lazy dog.');
  const sample = librivox()[0]!;
  // About 40 s of speech: long enough to be caught running.
  const long = soxConcat(Array(5).fill(sample.file));

  before(async () => {
    source = http.createServer((req, res) => {
      if (req.url === '/fox.wav') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(readFileSync(fox));
      if (req.url === '/huge') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(Buffer.alloc(MAX_BYTES + 1000));
      if (req.url === '/not-audio') return res.writeHead(200, { 'content-type': 'text/plain' }).end('this is not audio at all, only text');
      if (req.url === '/hook') {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          hooks.push({ headers: req.headers, body });
          if (hookFailuresLeft > 0) {
            hookFailuresLeft--;
            res.writeHead(500).end('try again');
          } else res.writeHead(200).end('ok');
        });
        return;
      }
      res.writeHead(404).end('no');
    });
    source.listen(0, '127.0.0.1');
    await new Promise((r) => source.once('listening', r));
    base = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
    const e = await env();
    cleanup = e.cleanup;
    t = await createTestApp({
      PARLA_FETCH_ALLOW_PRIVATE: 'true',
      PARLA_JOB_CONCURRENCY: '1',
      PARLA_JOB_LEASE_SECONDS: '8',
      PARLA_JOB_MAX_BYTES: String(MAX_BYTES),
      ...e.env,
    });
    work = startJobWork(t.services, { webhookScheduleMs: [300, 300], pollMs: 200 });
    ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 100_000, plan: 'enterprise' }));
    ({ apiKey: otherKey } = await createTestAccount(t.services, { credits: 100_000, plan: 'enterprise' }));
  });
  after(async () => {
    await work?.stop();
    await t?.close();
    await cleanup?.();
    source?.close();
  });

  const upload = async (file: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}) => {
    const { body, contentType } = await multipart(readFileSync(file), fields, 'talk.wav');
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/jobs',
      headers: { 'x-api-key': key, 'content-type': contentType, ...headers },
      payload: body,
    });
  };
  const byUrl = (payload: Record<string, unknown>, headers: Record<string, string> = {}, apiKey = key) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/jobs',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
      payload,
    });
  const get = (path: string, apiKey = key) => t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': apiKey } });
  const balance = () => t.services.store.getBalance(accountId, 'live');
  async function until(id: string, done: (job: any) => boolean, ms = 40_000, apiKey = key): Promise<any> {
    const started = Date.now();
    for (;;) {
      const res = await get(`/api/v1/stt/jobs/${id}`, apiKey);
      assert.equal(res.statusCode, 200, res.body);
      const job = res.json().job;
      if (done(job)) return job;
      if (Date.now() - started > ms) assert.fail(`job ${id} still ${JSON.stringify(job)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const ended = (j: any) => ['completed', 'failed', 'canceled'].includes(j.status);

  describe('jobs API', () => {
    test('an upload: 202 with Location, then completed with the batch result, billed once, audio deleted', async () => {
      const before = await balance();
      const res = await upload(fox, { response_format: 'verbose_json' });
      assert.equal(res.statusCode, 202, res.body);
      const { job } = res.json();
      assert.equal(res.json().success, true);
      assert.equal(res.headers.location, `/api/v1/stt/jobs/${job.id}`);
      assert.match(job.id, /^job_[A-Za-z0-9]{20}$/);
      assert.equal(job.status, 'queued');
      assert.equal(job.model, 'cipher-fast');
      assert.equal(job.response_format, 'verbose_json');
      assert.deepEqual(job.source, { type: 'upload', filename: 'talk.wav', bytes: readFileSync(fox).length });
      const done = await until(job.id, ended);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.progress, 1);
      assert.equal(done.attempts, 1);
      assert.ok(wordErrorRate('the quick brown fox jumps over the lazy dog', done.result.text) <= 0.2, done.result.text);
      assert.ok(Array.isArray(done.result.segments));
      assert.equal(done.credits_used, done.result.credits_used);
      assert.ok(done.credits_used > 0);
      assert.equal(await balance(), before - done.credits_used, "charged exactly the job's credits");
      assert.ok(done.started_at && done.finished_at);
      // (The runner deletes it right after the job completes: a moment after a GET can see that.)
      const uploads = async () => (await readdir(jobsDir(t.services.config.dataDir))).filter((f) => f.startsWith('upload-'));
      const waited = Date.now();
      while ((await uploads()).length > 0 && Date.now() - waited < 5000) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await uploads(), [], 'the upload is deleted when the job ends');
    });

    test('a URL with a callback: the webhook is signed, retried after a 500, and its attempts are in the job', async () => {
      hooks.length = 0;
      hookFailuresLeft = 1;
      const res = await byUrl({ url: `${base}/fox.wav`, callback_url: `${base}/hook`, response_format: 'text' });
      assert.equal(res.statusCode, 202, res.body);
      const { job } = res.json();
      assert.deepEqual(job.source, { type: 'url', url: `${base}/fox.wav` });
      assert.equal(job.callback_url, `${base}/hook`);
      const done = await until(job.id, (j) => j.webhook?.state === 'delivered');
      assert.equal(done.status, 'completed');
      assert.equal(typeof done.result, 'string');
      assert.match(done.result, /fox/i);
      assert.equal(hooks.length, 2, 'one failed attempt, one delivered');
      const secret = (await t.services.store.getWebhookSecret(accountId, 'unused'))!;
      for (const [i, h] of hooks.entries()) {
        assert.ok(
          verifyWebhookSignature({ secret, header: h.headers['x-parla-signature'] as string, body: h.body }),
          "signed with the account's secret",
        );
        assert.equal(h.headers['x-parla-webhook-attempt'], String(i + 1));
        assert.equal(h.headers['x-parla-webhook-id'], done.webhook.id, 'the same delivery id on each retry');
        const payload = JSON.parse(h.body);
        assert.equal(payload.event, 'stt.job.completed');
        assert.equal(payload.job.id, job.id);
        assert.equal(payload.job.result, done.result);
        assert.equal(payload.job.webhook, undefined);
      }
      assert.equal(hooks[0]!.body, hooks[1]!.body, 'the same bytes on every attempt');
      assert.deepEqual(
        done.webhook.attempts.map((a: any) => [a.attempt, a.status, a.ok]),
        [
          [1, 500, false],
          [2, 200, true],
        ],
      );
      const text = await get(`/api/v1/stt/jobs/${job.id}/result`);
      assert.equal(text.statusCode, 200);
      assert.match(String(text.headers['content-type']), /^text\/plain/);
      assert.equal(text.body, done.result);
    });

    test('a url-encoded form with a url (curl -d): a job like the JSON one; another type is named in the refusal', async () => {
      const form = new URLSearchParams({ url: `${base}/fox.wav`, response_format: 'text' });
      form.append('keywords', 'fox');
      form.append('keywords', 'lazy dog');
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
        payload: form.toString(),
      });
      assert.equal(res.statusCode, 202, res.body);
      const done = await until(res.json().job.id, ended);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.match(done.result, /fox/i);
      // A field that is no list, repeated: refused by name.
      const twice = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `url=${encodeURIComponent(`${base}/fox.wav`)}&model=a&model=b`,
      });
      assert.equal(twice.statusCode, 400, twice.body);
      assert.equal(twice.json().error.details.field, 'model');
      const plain = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': key, 'content-type': 'text/plain' },
        payload: 'url=x',
      });
      assert.equal(plain.statusCode, 400, plain.body);
      assert.match(plain.json().error.message, /text\/plain.*multipart\/form-data.*application\/json.*application\/x-www-form-urlencoded/);
    });

    test('a download that fails, audio that does not decode: failed jobs with the error, nothing charged, a stt.job.failed webhook', async () => {
      hooks.length = 0;
      const before = await balance();
      const missing = (await byUrl({ url: `${base}/missing.wav`, callback_url: `${base}/hook` })).json().job;
      const notAudio = (await byUrl({ url: `${base}/not-audio` })).json().job;
      const a = await until(missing.id, (j) => ended(j) && j.webhook?.state === 'delivered');
      assert.equal(a.status, 'failed');
      assert.equal(a.error.code, 'URL_FETCH_FAILED');
      assert.equal(a.error.details.status, 404);
      assert.equal(a.credits_used, null);
      assert.equal(a.result, undefined);
      assert.equal(JSON.parse(hooks[0]!.body).event, 'stt.job.failed');
      const b = await until(notAudio.id, ended);
      assert.equal(b.status, 'failed');
      assert.equal(b.error.code, 'INVALID_AUDIO');
      assert.equal(await balance(), before);
    });

    test('Idempotency-Key: the same body answers the same job, another body is 409', async () => {
      const before = await balance();
      const headers = { 'idempotency-key': `key-${Date.now()}` };
      const first = await upload(fox, { language: 'en' }, headers);
      assert.equal(first.statusCode, 202, first.body);
      const again = await upload(fox, { language: 'en' }, headers);
      assert.equal(again.statusCode, 202);
      assert.equal(again.json().job.id, first.json().job.id);
      const other = await upload(fox, { language: 'en', response_format: 'text' }, headers);
      assert.equal(other.statusCode, 409, other.body);
      assert.equal(other.json().error.code, 'IDEMPOTENCY_KEY_REUSED');
      const done = await until(first.json().job.id, ended);
      assert.equal(done.status, 'completed');
      const replay = await upload(fox, { language: 'en' }, headers);
      assert.equal(replay.json().job.id, done.id);
      assert.equal(replay.json().job.status, 'completed');
      assert.equal(await balance(), before - done.credits_used, 'one job, one charge');
      const bad = await upload(fox, {}, { 'idempotency-key': 'has space' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error.code, 'INVALID_PARAMETER');
    });

    test('cancel a running job: canceled, its credits released, its audio deleted; DELETE of a finished job deletes its result', async () => {
      const before = await balance();
      const job = (await upload(long)).json().job;
      await until(job.id, (j) => j.status === 'running' && j.progress !== null && j.progress >= 0.2);
      const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/stt/jobs/${job.id}`, headers: { 'x-api-key': key } });
      assert.equal(del.statusCode, 200, del.body);
      assert.equal(del.json().job.status, 'canceled');
      // The runner notices at its next heartbeat and gives the hold back.
      const started = Date.now();
      while ((await balance()) !== before && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 200));
      assert.equal(await balance(), before, 'a canceled job costs nothing');
      const done = await until(job.id, ended);
      assert.equal(done.status, 'canceled');
      assert.equal(done.credits_used, null);
      while (Date.now() - started < 30_000 && (await readdir(jobsDir(t.services.config.dataDir))).some((f) => f.startsWith('upload-')))
        await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        (await readdir(jobsDir(t.services.config.dataDir))).filter((f) => f.startsWith('upload-')),
        [],
      );

      // (The canceled recognition may still occupy the engine: it cannot be interrupted.)
      const finished = (await upload(fox)).json().job;
      await until(finished.id, ended, 120_000);
      // Once the engine is idle the canceled recognition has ended too: it settled nothing.
      const idle = Date.now();
      while (Date.now() - idle < 120_000) {
        const stats = t.services.pool.stats();
        if (stats.running === 0 && stats.queued === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const ledger = await t.services.store.listUsage(accountId, 'live', 1000);
      assert.ok(!ledger.some((u) => u.requestId === job.id), 'no ledger row for the canceled job');
      const gone = await t.app.inject({ method: 'DELETE', url: `/api/v1/stt/jobs/${finished.id}`, headers: { 'x-api-key': key } });
      assert.equal(gone.statusCode, 200);
      assert.equal(gone.json().job.result_deleted, true);
      assert.equal(gone.json().job.result, null);
      assert.equal((await get(`/api/v1/stt/jobs/${finished.id}/result`)).statusCode, 404);
    });

    test('a canceled job is never billed: a cancel on another node (the queue only, no heartbeat meanwhile) is seen before settling', async () => {
      // This node's runner stands aside; a runner whose heartbeats never come in time and that
      // hears no cancel events plays the node running the job: only the check before settling can stop it.
      await work.stop();
      const ended: string[] = [];
      // What the queue answered the runner, to tell which check stopped it.
      const answers: string[] = [];
      const watched = new Proxy(t.services.jobs.queue, {
        get(target, prop) {
          const v = Reflect.get(target, prop) as unknown;
          if (typeof v !== 'function') return v;
          return (...args: unknown[]) => {
            const out = (v as (...a: unknown[]) => unknown).apply(target, args);
            if (prop === 'heartbeat' || prop === 'beginSettle')
              void (out as Promise<boolean>).then(
                (r) => answers.push(`${prop}:${r}`),
                () => undefined,
              );
            return out;
          };
        },
      });
      const runner = new JobRunner(
        {
          queue: watched,
          stt: t.services.stt,
          store: t.services.store,
          billing: t.services.billing,
          limiter: t.services.limiter,
          config: t.services.config,
          log: t.services.log,
          dir: jobsDir(t.services.config.dataDir),
          policy: fetchPolicy(t.services.config),
          nodeId: 'other-node',
          onFinished: (status) => ended.push(status),
        },
        { concurrency: 1, leaseMs: 3600_000, heartbeatMs: 3600_000, pollMs: 100 },
      );
      try {
        const before = await balance();
        // About 8 s of speech: the cancel lands while it is recognized.
        const job = (await upload(sample.file)).json().job;
        runner.start();
        const { queue } = t.services.jobs;
        const started = Date.now();
        while (((await queue.get(accountId, job.id))!.progress ?? 0) < 0.2 && Date.now() - started < 60_000)
          await new Promise((r) => setTimeout(r, 20));
        assert.equal((await queue.cancel(accountId, job.id))!.status, 'canceled');
        while (ended.length === 0 && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual(ended, ['canceled']);
        const done = (await queue.get(accountId, job.id))!;
        assert.equal(done.status, 'canceled');
        assert.equal(done.creditsUsed, null);
        assert.equal(done.result, null);
        assert.equal(await balance(), before, 'the hold is back, nothing charged');
        const ledger = await t.services.store.listUsage(accountId, 'live', 1000);
        assert.ok(!ledger.some((u) => u.requestId === job.id), 'no ledger row for a canceled job');
        assert.ok(answers.includes('beginSettle:false'), `the run asked before settling and was refused (${answers.join(', ')})`);
        assert.ok(!answers.includes('heartbeat:false'), 'not told by a heartbeat');
      } finally {
        await runner.stop();
        work = startJobWork(t.services, { webhookScheduleMs: [300, 300], pollMs: 200 });
      }
    });

    test('cancel racing the end of the run: each job is either completed and billed its credits_used, or canceled and unbilled', async () => {
      const before = await balance();
      const { queue } = t.services.jobs;
      const jobs: string[] = [];
      for (let i = 0; i < 8; i++) jobs.push((await upload(fox)).json().job.id);
      // Cancels at staggered moments around each recognition's end: through this node's DELETE
      // (the run is aborted at once) and through the queue alone (as from another node).
      await Promise.all(
        jobs.map(async (id, i) => {
          await until(id, (j) => j.status !== 'queued', 120_000);
          await new Promise((r) => setTimeout(r, (i >> 1) * 200));
          if (i % 2 === 0) await t.app.inject({ method: 'DELETE', url: `/api/v1/stt/jobs/${id}`, headers: { 'x-api-key': key } });
          else await queue.cancel(accountId, id);
        }),
      );
      const ledger = new Map((await t.services.store.listUsage(accountId, 'live', 1000)).map((u) => [u.requestId, u.credits]));
      let charged = 0;
      const outcomes: string[] = [];
      for (const id of jobs) {
        const done = await until(id, ended, 120_000);
        outcomes.push(done.status);
        if (done.status === 'completed') {
          assert.ok(done.credits_used > 0);
          // (The ledger is read again: a completed job's row was written before it completed.)
          const row = (await t.services.store.listUsage(accountId, 'live', 1000)).find((u) => u.requestId === id);
          assert.equal(row?.credits, done.credits_used, `${id}: completed, billed its credits_used`);
          charged += done.credits_used;
        } else {
          assert.equal(done.status, 'canceled', JSON.stringify(done));
          assert.equal(done.credits_used, null);
          assert.equal(ledger.has(id), false, `${id}: canceled, no ledger row`);
        }
      }
      // Holds of runs still finishing on their workers come back once they end.
      const started = Date.now();
      while ((await balance()) !== before - charged && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 200));
      assert.equal(await balance(), before - charged, `ledger and jobs agree (${outcomes.join(', ')})`);
      for (const id of jobs)
        if (outcomes[jobs.indexOf(id)] === 'canceled')
          assert.ok(!(await t.services.store.listUsage(accountId, 'live', 1000)).some((u) => u.requestId === id));
    });

    test('hostile text on this store: a NUL or a lone surrogate in prompt, keywords, url, callback_url or the file name is cleaned, never a 500', async () => {
      const del = (id: string, apiKey = key) =>
        t.app.inject({ method: 'DELETE', url: `/api/v1/stt/jobs/${id}`, headers: { 'x-api-key': apiKey } });
      for (const body of [
        { url: `${base}/fox.wav`, prompt: 'a\u0000b quick brown' },
        { url: `${base}/fox.wav`, prompt: '\ud800' },
        { url: `${base}/fox.wav`, keywords: 'fox\u0000,dog' },
        { url: `${base}/fox.wav`, keywords: ['\u0000', 'lazy\udc00'] },
        { url: `${base}/fox.wav\u0000` },
        { url: `${base}/fo\u0000x\ud800.wav` },
        { url: `${base}/fox.wav`, callback_url: `${base}/hook\u0000x` },
      ]) {
        const res = await byUrl(body);
        assert.equal(res.statusCode, 202, `${JSON.stringify(body)}: ${res.body}`);
        const { job } = res.json();
        assert.doesNotMatch(res.body, /\\u0000|\\ud[89ab]/i, 'nothing of it stored');
        const got = await get(`/api/v1/stt/jobs/${job.id}`);
        assert.equal(got.statusCode, 200, got.body);
        const gone = await del(job.id);
        assert.equal(gone.statusCode, 200, gone.body);
      }
      const stored = (await byUrl({ url: `${base}/fox.wav`, prompt: 'a\u0000b', keywords: 'x\u0000y' })).json().job;
      const params = (await t.services.jobs.queue.get(accountId, stored.id))!.params;
      assert.equal(params.prompt, 'ab');
      assert.ok((params.keywords as string[]).includes('xy'));
      await del(stored.id);
      const lang = await byUrl({ url: `${base}/fox.wav`, language: 'en\u0000' });
      assert.equal(lang.statusCode, 400, lang.body);
      const { body, contentType } = await multipart(readFileSync(fox), { prompt: 'p\u0000q', keywords: 'k\u0000' }, 'a\ud800\u0000.wav');
      const up = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': key, 'content-type': contentType },
        payload: body,
      });
      assert.equal(up.statusCode, 202, up.body);
      // (The lone surrogate reaches the server as U+FFFD: UTF-8 cannot carry it.)
      assert.equal(up.json().job.source.filename, 'a\ufffd.wav');
      await del(up.json().job.id);
    });

    test("test-mode and live-mode jobs are apart: the other mode's job is 404 to GET, result and DELETE, and not listed", async () => {
      const { apiKey: live, testKey } = await createTestAccount(t.services, { credits: 100_000, testCredits: 100_000, plan: 'enterprise' });
      const liveJob = (await byUrl({ url: `${base}/fox.wav` }, {}, live)).json().job;
      const testJob = (await byUrl({ url: `${base}/fox.wav` }, {}, testKey)).json().job;
      assert.ok(liveJob?.id && testJob?.id);
      await until(liveJob.id, ended, 60_000, live);
      await until(testJob.id, ended, 60_000, testKey);
      for (const [apiKey, theirs] of [
        [testKey, liveJob.id],
        [live, testJob.id],
      ] as const) {
        for (const res of [
          await get(`/api/v1/stt/jobs/${theirs}`, apiKey),
          await get(`/api/v1/stt/jobs/${theirs}/result`, apiKey),
          await t.app.inject({ method: 'DELETE', url: `/api/v1/stt/jobs/${theirs}`, headers: { 'x-api-key': apiKey } }),
        ]) {
          assert.equal(res.statusCode, 404, res.body);
          assert.equal(res.json().error.code, 'NOT_FOUND');
        }
      }
      assert.deepEqual(
        (await get('/api/v1/stt/jobs', testKey)).json().jobs.map((j: any) => j.id),
        [testJob.id],
      );
      assert.deepEqual(
        (await get('/api/v1/stt/jobs', live)).json().jobs.map((j: any) => j.id),
        [liveJob.id],
      );
      const kept = (await get(`/api/v1/stt/jobs/${liveJob.id}`, live)).json().job;
      assert.equal(kept.status, 'completed');
      assert.equal(kept.result_deleted, false, 'the test key deleted nothing');
    });

    test('a node that stops mid-job hands the job back at once, uncounted and unbilled; the next start runs it', async () => {
      const before = await balance();
      const job = (await upload(long)).json().job;
      await until(job.id, (j) => j.status === 'running' && j.progress >= 0.2);
      await work.stop();
      const back = (await get(`/api/v1/stt/jobs/${job.id}`)).json().job;
      assert.equal(back.status, 'queued');
      assert.equal(back.attempts, 0);
      assert.equal(await balance(), before, 'its hold is back');
      work = startJobWork(t.services, { webhookScheduleMs: [300, 300], pollMs: 200 });
      const done = await until(job.id, ended, 120_000);
      assert.equal(done.status, 'completed');
      assert.equal(done.attempts, 1, JSON.stringify(done).slice(0, 1500));
      assert.equal(await balance(), before - done.credits_used);
    });

    test('the list: newest first, cursor paging, status filter; another account sees none of them', async () => {
      const all = (await get('/api/v1/stt/jobs?limit=100')).json();
      assert.ok(all.jobs.length >= 6);
      const created = all.jobs.map((j: any) => j.created_at);
      assert.deepEqual([...created].sort().reverse(), created);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = (await get(`/api/v1/stt/jobs?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json();
        assert.ok(page.jobs.length <= 2);
        seen.push(...page.jobs.map((j: any) => j.id));
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(
        seen,
        all.jobs.map((j: any) => j.id),
      );
      const failed = (await get('/api/v1/stt/jobs?status=failed')).json().jobs;
      assert.ok(failed.length >= 2 && failed.every((j: any) => j.status === 'failed'));
      assert.deepEqual((await get('/api/v1/stt/jobs', otherKey)).json().jobs, []);
      const theirs = await get(`/api/v1/stt/jobs/${all.jobs[0].id}`, otherKey);
      assert.equal(theirs.statusCode, 404);
      assert.equal(theirs.json().error.code, 'NOT_FOUND');
      const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/stt/jobs/${all.jobs[0].id}`, headers: { 'x-api-key': otherKey } });
      assert.equal(del.statusCode, 404);
      assert.equal((await get('/api/v1/stt/jobs?cursor=nonsense')).json().error.code, 'INVALID_PARAMETER');
    });

    test('a multipart form with a url field and no file; a download over PARLA_JOB_MAX_BYTES fails the job with FILE_TOO_LARGE', async () => {
      const { body, contentType } = await multipart(null, { url: `${base}/fox.wav`, response_format: 'text' });
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': key, 'content-type': contentType },
        payload: body,
      });
      assert.equal(res.statusCode, 202, res.body);
      const done = await until(res.json().job.id, ended);
      assert.equal(done.status, 'completed');
      assert.match(done.result, /fox/i);
      const huge = (await byUrl({ url: `${base}/huge` })).json().job;
      const failed = await until(huge.id, ended);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error.code, 'FILE_TOO_LARGE');
      assert.deepEqual(
        (await readdir(jobsDir(t.services.config.dataDir))).filter((f) => f.startsWith('download-')),
        [],
        'the partial download is gone',
      );
    });

    test('an upload over PARLA_JOB_MAX_BYTES: 413 while streaming, nothing kept', async () => {
      const { body, contentType } = await multipart(Buffer.alloc(MAX_BYTES + 10), {}, 'big.wav');
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': key, 'content-type': contentType },
        payload: body,
      });
      assert.equal(res.statusCode, 413, res.body);
      assert.equal(res.json().error.code, 'FILE_TOO_LARGE');
      assert.deepEqual(
        (await readdir(jobsDir(t.services.config.dataDir))).filter((f) => f.startsWith('upload-')),
        [],
      );
    });

    test("retention: finished jobs older than PARLA_JOB_RETENTION_DAYS are purged by the node's timer job", async () => {
      const job = (await byUrl({ url: `${base}/missing.wav` })).json().job;
      await until(job.id, ended);
      const eightDaysAgo = Date.now() - 8 * 86400_000;
      // Ended eight days ago, as the queue's database records it (the retention is 7 days).
      const { databaseUrl, dataDir } = t.services.config;
      if (databaseUrl) {
        const c = new pg.Client({ connectionString: databaseUrl });
        await c.connect();
        await c.query('UPDATE stt_jobs SET finished_at = $1 WHERE id = $2', [new Date(eightDaysAgo), job.id]);
        await c.end();
      } else {
        const db = new Database(path.join(dataDir, 'jobs.db'));
        db.prepare('UPDATE stt_jobs SET finished_at = ? WHERE id = ?').run(eightDaysAgo, job.id);
        db.close();
      }
      const recent = (await byUrl({ url: `${base}/missing.wav` })).json().job;
      await until(recent.id, ended);
      assert.ok((await work.purge()) >= 1);
      assert.equal((await get(`/api/v1/stt/jobs/${job.id}`)).statusCode, 404, 'past retention: gone');
      assert.equal((await get(`/api/v1/stt/jobs/${recent.id}`)).statusCode, 200, 'within retention: kept');
    });

    test('the edge refuses bad requests before a job exists', async () => {
      const expect = async (res: Awaited<ReturnType<typeof byUrl>>, status: number, code: string) => {
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.json().error.code, code);
      };
      await expect(await byUrl({ url: 'file:///etc/passwd' }), 400, 'URL_NOT_ALLOWED');
      await expect(await byUrl({ url: 'http://user:pw@example.com/a.wav' }), 400, 'URL_NOT_ALLOWED');
      await expect(await byUrl({ url: `https://example.com/${'a'.repeat(5000)}` }), 400, 'URL_NOT_ALLOWED');
      await expect(await byUrl({ url: `${base}/fox.wav`, callback_url: 'ftp://example.com/' }), 400, 'URL_NOT_ALLOWED');
      await expect(await byUrl({}), 400, 'MISSING_FILE');
      await expect(await byUrl({ url: `${base}/fox.wav`, model: 'no-such-model' }), 400, 'INVALID_MODEL');
      await expect(await byUrl({ url: `${base}/fox.wav`, response_format: 'mp3' }), 400, 'INVALID_FORMAT');
      await expect(await byUrl({ url: `${base}/fox.wav`, zero_retention: 'maybe' }), 400, 'INVALID_PARAMETER');
      await expect(await byUrl({ url: { nested: true } }), 400, 'INVALID_PARAMETER');
      await expect(
        await t.app.inject({ method: 'POST', url: '/api/v1/stt/jobs', payload: { url: `${base}/fox.wav` } }),
        401,
        'AUTH_MISSING_API_KEY',
      );
      await expect(await get('/api/v1/stt/jobs/job_nope'), 404, 'NOT_FOUND');
      const { apiKey: broke } = await createTestAccount(t.services, { credits: 0 });
      await expect(await byUrl({ url: `${base}/fox.wav` }, {}, broke), 402, 'INSUFFICIENT_CREDITS');
      assert.deepEqual(
        (await readdir(jobsDir(t.services.config.dataDir))).filter((f) => f.startsWith('upload-')),
        [],
      );
    });

    test('an upload whose header declares more than the balance pays, or than any job may carry: refused at creation (decision #42)', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'parla-job-declared-'));
      const hour = hourOfFlac(dir);
      const { apiKey: poor } = await createTestAccount(t.services, { credits: 20, plan: 'enterprise' });
      const flac = await multipart(readFileSync(hour), {}, 'hour.flac');
      const paid = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': poor, 'content-type': flac.contentType },
        payload: flac.body,
      });
      assert.equal(paid.statusCode, 402, paid.body);
      assert.equal(paid.json().error.code, 'INSUFFICIENT_CREDITS');
      // 5.3 hours of 8-bit WAV at 100 Hz (1.9 MB, under this suite's job size limit): over the 4-hour cap whatever the balance.
      const long = path.join(dir, 'long.wav');
      const data = 1_900_000;
      const h = Buffer.alloc(44);
      h.write('RIFF', 0, 'latin1');
      h.writeUInt32LE(36 + data, 4);
      h.write('WAVEfmt ', 8, 'latin1');
      h.writeUInt32LE(16, 16);
      h.writeUInt16LE(1, 20);
      h.writeUInt16LE(1, 22);
      h.writeUInt32LE(100, 24);
      h.writeUInt32LE(100, 28);
      h.writeUInt16LE(1, 32);
      h.writeUInt16LE(8, 34);
      h.write('data', 36, 'latin1');
      h.writeUInt32LE(data, 40);
      writeFileSync(long, Buffer.concat([h, Buffer.alloc(data, 0x80)]));
      const tooLong = await upload(long);
      assert.equal(tooLong.statusCode, 400, tooLong.body);
      assert.equal(tooLong.json().error.code, 'AUDIO_TOO_LONG');
      assert.deepEqual(
        (await readdir(jobsDir(t.services.config.dataDir))).filter((f) => f.startsWith('upload-')),
        [],
        'a refused upload is not kept',
      );
    });

    test('zero_retention: the webhook carries the result once, a GET never shows it', async () => {
      hooks.length = 0;
      const job = (await byUrl({ url: `${base}/fox.wav`, callback_url: `${base}/hook`, zero_retention: true })).json().job;
      assert.equal(job.zero_retention, true);
      const done = await until(job.id, (j) => j.webhook?.state === 'delivered');
      assert.equal(done.status, 'completed');
      assert.equal(done.result, null);
      assert.match(JSON.parse(hooks.at(-1)!.body).job.result.text, /fox/i);
      const after = (await get(`/api/v1/stt/jobs/${job.id}`)).json().job;
      assert.equal(after.result, null);
      assert.equal((await get(`/api/v1/stt/jobs/${job.id}/result`)).statusCode, 404);
    });

    test('the OpenAPI document describes the job routes and the job object', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const post = doc.paths['/api/v1/stt/jobs'].post;
      assert.ok(post.responses['202'] && post.responses['409'] && post.responses['413']);
      assert.ok(doc.paths['/api/v1/stt/jobs'].get.parameters.some((p: any) => p.name === 'cursor'));
      assert.ok(
        doc.paths['/api/v1/stt/jobs/{id}'].get &&
          doc.paths['/api/v1/stt/jobs/{id}'].delete &&
          doc.paths['/api/v1/stt/jobs/{id}/result'].get,
      );
      const job = doc.components.schemas.SttJob;
      for (const field of ['id', 'status', 'progress', 'created_at', 'credits_used', 'result', 'error', 'webhook', 'zero_retention'])
        assert.ok(job.properties[field], field);
    });

    test('an account with zero retention: every job keeps no result, whatever the request says', async () => {
      const { apiKey, accountId: id } = await createTestAccount(t.services, { credits: 100_000, plan: 'enterprise' });
      await t.services.store.setZeroRetention(id, true);
      const job = (await byUrl({ url: `${base}/fox.wav`, zero_retention: false }, {}, apiKey)).json().job;
      assert.equal(job.zero_retention, true);
      const done = await until(job.id, ended, 40_000, apiKey);
      assert.equal(done.status, 'completed');
      assert.equal(done.result, null);
      assert.ok(done.credits_used > 0);
    });

    test('an account at its concurrency limit: its job waits queued (not a run) while other work goes on, then runs', async () => {
      const { accountId: id, keyId } = await createTestAccount(t.services, { credits: 100_000, plan: 'free' });
      const { limiter, config } = t.services;
      const limit = config.product.plans.free.concurrent;
      // The account's slots, all taken (as by requests in flight on any node).
      const slots: string[] = [];
      for (let i = 0; i < limit; i++) {
        const d = await limiter.acquireSlot(id, limit, 60_000);
        assert.ok(d.ok);
        slots.push(d.slotId);
      }
      // (A POST would itself need a free slot: the job is queued the way the route queues it.)
      const { job: waiting } = await t.services.jobs.queue.enqueue({
        accountId: id,
        keyId,
        mode: 'live',
        params: paramsOf(parseSttFields(new Map(), 'universal')),
        source: { type: 'url', url: `${base}/fox.wav` },
        callbackUrl: null,
        idempotencyKey: null,
        bodyHash: null,
      });
      t.services.jobs.events.emit('enqueued', waiting.id);
      const other = (await byUrl({ url: `${base}/fox.wav` })).json().job;
      assert.equal((await until(other.id, ended)).status, 'completed', "other accounts' jobs run meanwhile");
      // (Read from the queue: the account's own GETs would need a slot too, and the free plan allows 10 a minute.)
      const { queue } = t.services.jobs;
      const still = (await queue.get(id, waiting.id))!;
      assert.equal(still.status, 'queued');
      assert.equal(still.attempts, 0, 'a job handed back is not counted as a run');
      for (const s of slots) await limiter.releaseSlot(id, s);
      const started = Date.now();
      while (!['completed', 'failed'].includes((await queue.get(id, waiting.id))!.status) && Date.now() - started < 40_000)
        await new Promise((r) => setTimeout(r, 250));
      const done = (await queue.get(id, waiting.id))!;
      assert.equal(done.status, 'completed');
      assert.equal(done.attempts, 1);
      assert.match((done.result as { text: string }).text, /fox/i);
    });

    test('metrics: queue depth, job durations, webhook outcomes', async () => {
      const text = await t.services.metrics.registry.metrics();
      assert.match(text, /parla_jobs\{state="queued"\} \d+/);
      assert.match(text, /parla_jobs\{state="webhooks_pending"\} \d+/);
      assert.match(text, /parla_job_duration_seconds_count\{status="completed"\} [1-9]/);
      assert.match(text, /parla_job_duration_seconds_count\{status="failed"\} [1-9]/);
      assert.match(text, /parla_webhook_attempts_total\{outcome="http_error"\} [1-9]/);
      assert.match(text, /parla_webhook_attempts_total\{outcome="delivered"\} [1-9]/);
    });
  });
}
