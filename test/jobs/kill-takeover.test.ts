// kill -9 a worker process mid-job: while it lives its lease holds; once it is dead, the job is
// taken over (on SQLite by the same node restarted, on PostgreSQL by a second node) and ends once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import pg from 'pg';
import { SqliteJobQueue } from '../../src/jobs/sqlite-queue.js';
import { PgBossJobQueue } from '../../src/jobs/pgboss-queue.js';
import type { JobQueue, Lease } from '../../src/jobs/queue.js';
import { freshPgSchema, PG_BASE_URL, tempDir } from '../helpers/env.js';
import { newJob } from './queue-contract.js';

const LEASE_MS = 800;

async function runWorker(args: string[]): Promise<{ lease: Lease; kill(): Promise<void> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/jobs/fixtures/claim-and-hang.ts', ...args, String(LEASE_MS)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  for await (const chunk of proc.stdout!) {
    out += chunk;
    if (out.includes('\n')) break;
  }
  const line = JSON.parse(out.split('\n')[0]!);
  if (!line.jobId) throw new Error(`worker claimed nothing: ${out} ${err}`);
  return {
    lease: { jobId: line.jobId, token: line.token, workerId: line.workerId, expiresAt: new Date() },
    async kill() {
      proc.kill('SIGKILL');
      if (proc.exitCode === null && proc.signalCode === null) await once(proc, 'exit');
    },
  };
}

async function takeOver(queue: JobQueue, accountId: string, jobId: string, workerLease: Lease) {
  // While the worker lives and heartbeats, its job stays its own.
  await new Promise((r) => setTimeout(r, LEASE_MS * 1.5));
  assert.equal(await queue.claim('other', 60_000), null, 'a live worker keeps its job');
  assert.equal((await queue.get(accountId, jobId))?.progress, 0.3);
  return async (kill: () => Promise<void>) => {
    await kill();
    const started = Date.now();
    let claimed = null;
    while (!claimed && Date.now() - started < 10_000) {
      claimed = await queue.claim('successor', 60_000);
      if (!claimed) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(claimed, "the dead worker's job is taken over");
    const waited = Date.now() - started;
    assert.equal(claimed.job.id, jobId);
    assert.equal(claimed.job.attempts, 2);
    assert.equal(
      await queue.complete(workerLease, { result: { by: 'dead' }, creditsUsed: 9 }),
      false,
      "the dead worker's lease ends nothing",
    );
    assert.equal(await queue.complete(claimed.lease, { result: { by: 'successor' }, creditsUsed: 5 }), true);
    assert.equal(await queue.complete(claimed.lease, { result: { by: 'successor' }, creditsUsed: 5 }), false);
    const done = (await queue.get(accountId, jobId))!;
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, { by: 'successor' });
    assert.equal(done.creditsUsed, 5);
    return waited;
  };
}

test('SQLite: kill -9 a worker, the restarted node takes its job over', async () => {
  const tmp = tempDir();
  const file = path.join(tmp.dir, 'jobs.db');
  const setup = new SqliteJobQueue(file);
  await setup.migrate();
  const { job } = await setup.enqueue(newJob('acc_kill'));
  await setup.close();
  const worker = await runWorker(['sqlite', file, '']);
  assert.equal(worker.lease.jobId, job.id);
  const restarted = new SqliteJobQueue(file);
  await restarted.migrate();
  try {
    const finish = await takeOver(restarted, 'acc_kill', job.id, worker.lease);
    const waited = await finish(() => worker.kill());
    assert.ok(waited < LEASE_MS + 3000, `taken over ${waited} ms after the kill`);
  } finally {
    await worker.kill();
    await restarted.close();
    tmp.cleanup();
  }
});

test('PostgreSQL: kill -9 a worker node, a second node takes its job over', async () => {
  const schema = await freshPgSchema();
  const bossSchema = `${schema.schema}_boss`;
  const nodeB = new PgBossJobQueue(schema.url, { bossSchema, retryDelayMs: 0 });
  await nodeB.migrate();
  const { job } = await nodeB.enqueue(newJob('acc_kill'));
  const worker = await runWorker(['postgres', schema.url, bossSchema]);
  try {
    assert.equal(worker.lease.jobId, job.id);
    const finish = await takeOver(nodeB, 'acc_kill', job.id, worker.lease);
    const waited = await finish(() => worker.kill());
    assert.ok(waited < LEASE_MS + 3000, `taken over ${waited} ms after the kill`);
  } finally {
    await worker.kill();
    await nodeB.close();
    await schema.drop();
    const c = new pg.Client({ connectionString: PG_BASE_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${bossSchema} CASCADE`);
    await c.end();
  }
});
