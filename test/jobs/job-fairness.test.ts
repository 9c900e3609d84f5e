// Fairness between accounts on the job runners (issue 30, item 7), on the SQLite queue and on
// PostgreSQL with pg-boss: sources that drip a byte at a time hold no more than their account's
// share of a node's runners, another account's job runs meanwhile, and a source under the minimum
// rate fails its job (once, not retried) instead of holding a runner for the total time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { freshPgSchema } from '../helpers/env.js';
import { flite } from '../helpers/speech.js';
import { startJobWork, type JobWork } from '../../src/background-jobs.js';
import { fetchPolicy, jobsDir } from '../../src/jobs/settings.js';
import { JobRunner } from '../../src/jobs/runner.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fairnessSuite(name: string, env: () => Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>): void {
  describe(`job fairness: ${name}`, () => {
    let t: TestApp;
    let work: JobWork;
    let source: http.Server;
    let base: string;
    let cleanup: () => Promise<void>;
    const fox = readFileSync(flite('The quick brown fox jumps over the lazy dog.'));

    before(async () => {
      source = http.createServer((req, res) => {
        if (req.url === '/fox.wav') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(fox);
        if (req.url?.startsWith('/drip')) {
          // A byte every 500 ms, for ever: never idle long enough for the idle limit.
          res.writeHead(200, { 'content-type': 'audio/wav' });
          const timer = setInterval(() => res.write('x'), 500);
          res.on('close', () => clearInterval(timer));
          return;
        }
        res.writeHead(404).end();
      });
      await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
      const e = await env();
      cleanup = e.cleanup;
      // Two runners, so an account's share is one (half, rounded up). No minimum rate here: what
      // is tested is the share alone (the rate has its own test below).
      t = await createTestApp({
        PARLA_FETCH_ALLOW_PRIVATE: 'true',
        PARLA_JOB_CONCURRENCY: '2',
        PARLA_JOB_LEASE_SECONDS: '8',
        PARLA_FETCH_MIN_KB_PER_SECOND: '0',
        ...e.env,
      });
      work = startJobWork(t.services, { pollMs: 200 });
    });
    after(async () => {
      await work?.stop();
      await t?.close();
      await cleanup?.();
      source.closeAllConnections();
      source.close();
    });

    const post = (apiKey: string, url: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: { url },
      });

    test("drip sources of one account hold one runner of two; another account's job runs meanwhile", async () => {
      const { apiKey: dripper, accountId: dripperId } = await createTestAccount(t.services, { credits: 100_000, plan: 'enterprise' });
      const { apiKey: other, accountId: otherId } = await createTestAccount(t.services, { credits: 100_000, plan: 'enterprise' });
      const { queue } = t.services.jobs;
      const drips: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await post(dripper, `${base}/drip?${i}`);
        assert.equal(res.statusCode, 202, res.body);
        drips.push(res.json().job.id);
      }
      const running = async () => (await queue.list(dripperId, { status: 'running', limit: 100 })).jobs.length;
      let waited = Date.now();
      while ((await running()) === 0 && Date.now() - waited < 20_000) await sleep(100);
      assert.equal(await running(), 1);
      const started = Date.now();
      const res = await post(other, `${base}/fox.wav`);
      assert.equal(res.statusCode, 202, res.body);
      const id = res.json().job.id;
      let most = 0;
      let done = (await queue.get(otherId, id))!;
      while (!['completed', 'failed', 'canceled'].includes(done.status) && Date.now() - started < 90_000) {
        most = Math.max(most, await running());
        await sleep(100);
        done = (await queue.get(otherId, id))!;
      }
      const seconds = (Date.now() - started) / 1000;
      assert.equal(done.status, 'completed', `the other account's job after ${seconds} s: ${JSON.stringify(done.error)}`);
      // (Held by the drips, it would wait for their 30-minute total limit.)
      assert.ok(seconds < 60, `served in ${seconds} s`);
      assert.ok(most <= 1, `the dripping account ran ${most} jobs at once`);
      const queued = (await queue.list(dripperId, { status: 'queued', limit: 100 })).jobs.length;
      assert.equal(queued, 3, 'its other drips wait their turn');
      for (const d of drips) await t.app.inject({ method: 'DELETE', url: `/api/v1/stt/jobs/${d}`, headers: { 'x-api-key': dripper } });
      waited = Date.now();
      while ((await running()) > 0 && Date.now() - waited < 10_000) await sleep(100);
      assert.equal(await running(), 0, 'canceled drips stop');
    });

    test('a source under the minimum rate fails its job once the window has passed, without a retry', async () => {
      // This node's runner stands aside for one with a minimum of 1 KB/s over 2 s.
      await work.stop();
      const config = t.services.config;
      const runner = new JobRunner(
        {
          queue: t.services.jobs.queue,
          stt: t.services.stt,
          store: t.services.store,
          billing: t.services.billing,
          limiter: t.services.limiter,
          config: {
            ...config,
            jobs: { ...config.jobs, download: { ...config.jobs.download, minBytesPerSecond: 1024, rateWindowMs: 2000 } },
          },
          log: t.services.log,
          dir: jobsDir(config.dataDir),
          policy: fetchPolicy(t.services.config),
          nodeId: 'rate-node',
        },
        { concurrency: 1, leaseMs: 8000, pollMs: 100 },
      );
      try {
        const { apiKey, accountId } = await createTestAccount(t.services, { credits: 100_000, plan: 'enterprise' });
        const before = await t.services.store.getBalance(accountId, 'live');
        const res = await post(apiKey, `${base}/drip?rate`);
        assert.equal(res.statusCode, 202, res.body);
        const id = res.json().job.id;
        runner.start();
        const started = Date.now();
        let job = (await t.services.jobs.queue.get(accountId, id))!;
        while (!['completed', 'failed', 'canceled'].includes(job.status) && Date.now() - started < 30_000) {
          await sleep(100);
          job = (await t.services.jobs.queue.get(accountId, id))!;
        }
        assert.equal(job.status, 'failed');
        assert.equal(job.error?.code, 'URL_FETCH_FAILED');
        assert.match(job.error?.message ?? '', /minimum of 1024 bytes\/s/);
        assert.equal(job.attempts, 1, 'not tried again');
        assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
      } finally {
        await runner.stop();
        work = startJobWork(t.services, { pollMs: 200 });
      }
    });
  });
}

fairnessSuite('SQLite', async () => ({ env: {}, async cleanup() {} }));
fairnessSuite('PostgreSQL', async () => {
  const pg = await freshPgSchema();
  return { env: { DATABASE_URL: pg.url }, cleanup: () => pg.drop() };
});
