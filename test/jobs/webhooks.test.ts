// Job webhooks end to end on both queues: a local HTTP receiver verifies every signature, answers
// 500 twice, stalls past the timeout once, then 200; every attempt lands in the job record.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SqliteJobQueue } from '../../src/jobs/sqlite-queue.js';
import { PgBossJobQueue } from '../../src/jobs/pgboss-queue.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { JobQueue } from '../../src/jobs/queue.js';
import { newWebhookSecret, signWebhook, verifyWebhookSignature } from '../../src/jobs/webhook-signature.js';
import { DEFAULT_SCHEDULE_MS, WebhookDispatcher } from '../../src/jobs/webhooks.js';
import { freshPgSchema, PG_BASE_URL, tempDir } from '../helpers/env.js';
import { newJob } from './queue-contract.js';
import pg from 'pg';

test('signatures: t=...,v1=HMAC("t.body"); tampering, another secret, an old timestamp and junk fail', () => {
  const secret = newWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  const body = '{"event":"stt.job.completed","job":{"id":"job_x"}}';
  const t = 1_790_000_000;
  const header = signWebhook(secret, body, t);
  assert.match(header, /^t=1790000000,v1=[0-9a-f]{64}$/);
  const ok = (h: string | undefined, b: string | Buffer = body, s = secret, now = t + 10) =>
    verifyWebhookSignature({ secret: s, header: h, body: b, nowSeconds: now });
  assert.equal(ok(header), true);
  assert.equal(ok(header, Buffer.from(body)), true);
  assert.equal(ok(header, body.replace('job_x', 'job_y')), false);
  assert.equal(ok(header, body, newWebhookSecret()), false);
  assert.equal(ok(header, body, secret, t + 301), false, 'outside the 5-minute tolerance');
  assert.equal(ok(`v1=${header.split('v1=')[1]},t=${t}`), true, 'order does not matter');
  assert.equal(ok(`t=${t},v1=${'0'.repeat(64)},${header.split(',')[1]}`), true, 'one of several v1 (rotation)');
  for (const junk of [
    undefined,
    '',
    't=',
    'v1=abc',
    `t=${t}`,
    `t=${t},v1=zz`,
    `t=${t},v1=${'a'.repeat(63)}`,
    `t=abc,v1=${'a'.repeat(64)}`,
    'x'.repeat(5000),
    `t=${t},v1=${'A'.repeat(64)}`,
  ]) {
    assert.equal(ok(junk), false, String(junk).slice(0, 40));
  }
  // The scheme is what a receiver in any language computes: HMAC-SHA256 over "t.body".
  assert.equal(DEFAULT_SCHEDULE_MS.length + 1, 8);
  const total = DEFAULT_SCHEDULE_MS.reduce((a, b) => a + b, 0) / 60_000;
  assert.ok(total > 50 && total < 70, `retries span about an hour (${total} min)`);
});

interface Backend {
  name: string;
  open(): Promise<{ queue: JobQueue; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'SQLite',
    open: async () => {
      const tmp = tempDir();
      const queue = new SqliteJobQueue(path.join(tmp.dir, 'jobs.db'));
      return {
        queue,
        cleanup: async () => {
          await queue.close();
          tmp.cleanup();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const schema = await freshPgSchema();
      const bossSchema = `${schema.schema}_boss`;
      const queue = new PgBossJobQueue(schema.url, { bossSchema, retryDelayMs: 0 });
      return {
        queue,
        cleanup: async () => {
          await queue.close();
          await schema.drop();
          const c = new pg.Client({ connectionString: PG_BASE_URL });
          await c.connect();
          await c.query(`DROP SCHEMA IF EXISTS ${bossSchema} CASCADE`);
          await c.end();
        },
      };
    },
  },
];

for (const backend of backends) {
  describe(`webhooks on ${backend.name}`, () => {
    const tmp = tempDir();
    const store = new SqliteStore(path.join(tmp.dir, 'parla.db'));
    let queue: JobQueue;
    let cleanup: () => Promise<void>;
    let server: http.Server;
    let base: string;
    const received: Array<{ id: string; attempt: string; signature: string; body: string; valid: boolean }> = [];
    let plan: Array<'500' | 'stall' | '200'> = [];
    let accountId: string;
    let secret: string;

    before(async () => {
      ({ queue, cleanup } = await backend.open());
      await queue.migrate();
      await store.migrate();
      accountId = (await store.createAccount({ name: 'hooks', plan: 'pro' })).id;
      secret = (await store.getWebhookSecret(accountId, newWebhookSecret()))!;
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString();
          const signature = String(req.headers['x-parla-signature']);
          received.push({
            id: String(req.headers['x-parla-webhook-id']),
            attempt: String(req.headers['x-parla-webhook-attempt']),
            signature,
            body,
            valid: verifyWebhookSignature({ secret, header: signature, body }),
          });
          const step = plan.shift() ?? '200';
          if (step === 'stall') return; // never answers: the sender's timeout ends it
          res.writeHead(step === '500' ? 500 : 200);
          res.end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await store.close();
      await cleanup();
      tmp.cleanup();
    });

    const dispatcher = (scheduleMs: number[], timeoutMs = 300) =>
      new WebhookDispatcher({
        queue,
        secretFor: (id) => store.getWebhookSecret(id, newWebhookSecret()),
        policy: { allowPrivate: false, allowHosts: ['127.0.0.1:*'] },
        scheduleMs,
        timeoutMs,
      });

    /** A finished job of `account` whose webhook goes to `callbackUrl` (due now); its id. */
    async function finished(account: string, callbackUrl: string): Promise<string> {
      const { job } = await queue.enqueue(newJob(account, { callbackUrl }));
      for (;;) {
        const c = await queue.claim('w', 60_000);
        assert.ok(c, 'the job is claimable');
        await queue.complete(c.lease, { result: { text: 'x' }, creditsUsed: 1 });
        if (c.job.id === job.id) return job.id;
      }
    }

    /** The job once its webhook is no longer pending (a running dispatcher delivers it), up to 2 s. */
    async function settled(account: string, jobId: string) {
      let job = await queue.get(account, jobId);
      for (let i = 0; i < 100 && job?.webhook.state === 'pending'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        job = await queue.get(account, jobId);
      }
      return job;
    }

    /** Runs the dispatcher until the job's webhook is no longer pending. */
    async function drain(d: WebhookDispatcher, jobId: string) {
      for (let i = 0; i < 200; i++) {
        await d.deliverDue();
        const job = await queue.get(accountId, jobId);
        if (job?.webhook.state !== 'pending') return job!;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('webhook never settled');
    }

    test('retried on 500 and on a timeout until a 2xx; same id and body each time, every signature valid, every attempt recorded', async () => {
      received.length = 0;
      plan = ['500', '500', 'stall', '200'];
      const { job } = await queue.enqueue(newJob(accountId, { callbackUrl: `${base}/hook?x=1` }));
      const c = await queue.claim('w', 60_000);
      assert.equal(c?.job.id, job.id);
      await queue.complete(c!.lease, { result: { text: 'hello there', duration: 2.5 }, creditsUsed: 3 });
      const done = await drain(dispatcher([20, 20, 20, 20, 20, 20, 20]), job.id);
      assert.equal(done.webhook.state, 'delivered');
      assert.deepEqual(
        done.webhook.attempts.map((a) => [a.attempt, a.status, a.ok]),
        [
          [1, 500, false],
          [2, 500, false],
          [3, null, false],
          [4, 200, true],
        ],
      );
      assert.match(done.webhook.attempts[2]!.error ?? '', /300 ms/);
      assert.equal(received.length, 4);
      assert.ok(
        received.every((r) => r.valid),
        'every delivery verifies with the account secret',
      );
      assert.equal(new Set(received.map((r) => r.id)).size, 1, 'X-Parla-Webhook-Id is stable across retries');
      assert.equal(received[0]!.id, done.webhook.id);
      assert.deepEqual(
        received.map((r) => r.attempt),
        ['1', '2', '3', '4'],
      );
      assert.equal(new Set(received.map((r) => r.body)).size, 1, 'the same body every time');
      const payload = JSON.parse(received[0]!.body);
      assert.equal(payload.event, 'stt.job.completed');
      assert.equal(payload.job.id, job.id);
      assert.equal(payload.job.status, 'completed');
      assert.deepEqual(payload.job.result, { text: 'hello there', duration: 2.5 });
      assert.equal(payload.job.credits_used, 3);
      assert.equal(payload.job.callback_url, `${base}/hook?x=1`);
    });

    test('a failed job sends stt.job.failed with its error; tries stop when the schedule ends', async () => {
      received.length = 0;
      plan = ['500', '500', '500'];
      const { job } = await queue.enqueue(newJob(accountId, { callbackUrl: `${base}/hook` }));
      const c = await queue.claim('w', 60_000);
      await queue.fail(c!.lease, { code: 'INVALID_AUDIO', message: 'The audio file could not be decoded.' });
      const done = await drain(dispatcher([10, 10]), job.id);
      assert.equal(done.webhook.state, 'failed', 'given up after 3 tries');
      assert.equal(done.webhook.attempts.length, 3);
      assert.equal(received.length, 3);
      const payload = JSON.parse(received[0]!.body);
      assert.equal(payload.event, 'stt.job.failed');
      assert.deepEqual(payload.job.error, { code: 'INVALID_AUDIO', message: 'The audio file could not be decoded.' });
      assert.equal('result' in payload.job, false);
    });

    test("one slow receiver delays only its own deliveries: another account's fast receiver gets its webhook at once", async () => {
      const slowAccount = (await store.createAccount({ name: 'slow hooks', plan: 'pro' })).id;
      const fastAccount = (await store.createAccount({ name: 'fast hooks', plan: 'pro' })).id;
      let open = 0;
      let mostOpen = 0;
      const slow = http.createServer((req, res) => {
        open++;
        mostOpen = Math.max(mostOpen, open);
        req.resume();
        // Answers after 2 s, well within the 5 s timeout: a slow receiver, not a broken one.
        const timer = setTimeout(() => res.writeHead(200).end(), 2000);
        res.on('close', () => {
          clearTimeout(timer);
          open--;
        });
      });
      let fastAt = 0;
      const fast = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          fastAt ||= Date.now();
          res.writeHead(200).end();
        });
      });
      for (const srv of [slow, fast]) await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const url = (srv: http.Server) => `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`;
      const slowJobs: string[] = [];
      for (let i = 0; i < 12; i++) slowJobs.push(await finished(slowAccount, url(slow)));
      const fastJob = await finished(fastAccount, url(fast));
      const d = dispatcher([60_000], 5000);
      const started = Date.now();
      d.start(100);
      try {
        while (!fastAt && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
        const waited = fastAt - started;
        // In batches of 10 awaited together it came after the first batch, 2 s later.
        assert.ok(fastAt > 0 && waited < 1500, `the fast receiver's webhook after ${waited} ms`);
        assert.equal((await settled(fastAccount, fastJob))?.webhook.state, 'delivered');
        // The slow receiver gets its deliveries a few at a time, each in the end.
        const deadline = Date.now() + 60_000;
        let pending = slowJobs.length;
        while (pending > 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 250));
          pending = 0;
          for (const id of slowJobs) if ((await queue.get(slowAccount, id))?.webhook.state === 'pending') pending++;
        }
        assert.equal(pending, 0, 'every slow delivery delivered');
        assert.ok(mostOpen <= 4, `at most 4 at once to one destination (saw ${mostOpen})`);
        for (const id of slowJobs) {
          const job = (await queue.get(slowAccount, id))!;
          assert.equal(job.webhook.state, 'delivered');
          assert.deepEqual(
            job.webhook.attempts.map((a) => [a.attempt, a.ok]),
            [[1, true]],
            'deferrals are not attempts',
          );
        }
      } finally {
        await d.stop();
        for (const srv of [slow, fast]) {
          srv.closeAllConnections();
          srv.close();
        }
      }
    });

    test('a wake sends a due delivery at once, without waiting for the next poll', async () => {
      const account = (await store.createAccount({ name: 'woken', plan: 'pro' })).id;
      let arrived = 0;
      const receiver = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          arrived ||= Date.now();
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      const jobId = await finished(account, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
      const d = dispatcher([60_000], 5000);
      // A poll a minute apart: only the wake can send it within the 10 s below.
      d.start(60_000);
      try {
        d.wake();
        const started = Date.now();
        while (!arrived && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
        assert.ok(arrived > 0, 'delivered after the wake');
        // Woken again while nothing is due, and while a claim runs: no error, nothing sent twice.
        d.wake();
        d.wake();
        await new Promise((r) => setTimeout(r, 300));
        const done = await queue.get(account, jobId);
        assert.deepEqual(
          done?.webhook.attempts.map((a) => [a.attempt, a.ok]),
          [[1, true]],
        );
      } finally {
        await d.stop();
        receiver.closeAllConnections();
        receiver.close();
      }
    });

    test("accounts sharing a receiving host: one account's slow endpoint there does not hold up another's", async () => {
      const slowAccount = (await store.createAccount({ name: 'slow path', plan: 'pro' })).id;
      const fastAccount = (await store.createAccount({ name: 'fast path', plan: 'pro' })).id;
      let slowOpen = 0;
      let mostSlowOpen = 0;
      let fastAt = 0;
      // One host, two paths: as two customers of one webhook platform.
      const host = http.createServer((req, res) => {
        req.resume();
        if (req.url === '/slow') {
          slowOpen++;
          mostSlowOpen = Math.max(mostSlowOpen, slowOpen);
          const timer = setTimeout(() => res.writeHead(200).end(), 2000);
          res.on('close', () => {
            clearTimeout(timer);
            slowOpen--;
          });
          return;
        }
        req.on('end', () => {
          fastAt ||= Date.now();
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
      const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
      for (let i = 0; i < 12; i++) await finished(slowAccount, `${base}/slow`);
      const fastJob = await finished(fastAccount, `${base}/fast`);
      const d = dispatcher([60_000], 5000);
      const started = Date.now();
      d.start(100);
      try {
        while (!fastAt && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
        const waited = fastAt - started;
        // With a cap per destination alone, the slow account's 4 places were the host's 4: the
        // other account's webhook waited for them (2 s and more).
        assert.ok(fastAt > 0 && waited < 1500, `the other account's webhook after ${waited} ms`);
        assert.equal((await settled(fastAccount, fastJob))?.webhook.state, 'delivered');
        assert.ok(mostSlowOpen >= 1 && mostSlowOpen <= 4, `at most 4 at once for one account to one host (saw ${mostSlowOpen})`);
      } finally {
        await d.stop();
        host.closeAllConnections();
        host.close();
      }
    });

    test('a callback to a private address is refused once and not retried; rotating the secret signs with the new one', async () => {
      received.length = 0;
      const { job } = await queue.enqueue(newJob(accountId, { callbackUrl: 'http://169.254.169.254/latest/meta-data/' }));
      const c = await queue.claim('w', 60_000);
      await queue.complete(c!.lease, { result: { text: 'x' }, creditsUsed: 1 });
      const done = await drain(dispatcher([10, 10, 10]), job.id);
      assert.equal(done.webhook.state, 'failed');
      assert.equal(done.webhook.attempts.length, 1);
      assert.match(done.webhook.attempts[0]!.error ?? '', /not public/);
      assert.equal(received.length, 0);

      const rotated = newWebhookSecret();
      await store.rotateWebhookSecret(accountId, rotated);
      const old = secret;
      secret = rotated;
      const j2 = (await queue.enqueue(newJob(accountId, { callbackUrl: `${base}/hook` }))).job;
      const c2 = await queue.claim('w', 60_000);
      await queue.complete(c2!.lease, { result: { text: 'y' }, creditsUsed: 1 });
      await drain(dispatcher([10]), j2.id);
      assert.equal(received.length, 1);
      assert.equal(received[0]!.valid, true);
      assert.equal(verifyWebhookSignature({ secret: old, header: received[0]!.signature, body: received[0]!.body }), false);
    });
  });
}
