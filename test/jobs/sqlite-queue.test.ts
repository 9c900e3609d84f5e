// The embedded SQLite job queue through the contract suite, plus what is particular to it: its own file, WAL, its own migrations, and openJobQueue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteJobQueue } from '../../src/jobs/sqlite-queue.js';
import { openJobQueue } from '../../src/jobs/open-queue.js';
import { tempDir, testConfig } from '../helpers/env.js';
import { newJob, runQueueContract } from './queue-contract.js';

runQueueContract('SqliteJobQueue', async () => {
  const tmp = tempDir();
  const file = path.join(tmp.dir, 'jobs.db');
  return { open: async (opts) => new SqliteJobQueue(file, { retryDelayMs: 0, ...opts }), cleanup: async () => tmp.cleanup() };
});

test('SQLite jobs file: WAL, own migration table, reopening keeps the jobs', async () => {
  const tmp = tempDir();
  const file = path.join(tmp.dir, 'data', 'jobs.db');
  const q = new SqliteJobQueue(file);
  await q.migrate();
  const { job } = await q.enqueue(newJob('acc_persist'));
  await q.close();
  const again = new SqliteJobQueue(file);
  await again.migrate();
  assert.equal((await again.get('acc_persist', job.id))?.status, 'queued');
  await again.close();
  const raw = new Database(file, { readonly: true });
  assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
  assert.deepEqual(raw.prepare('SELECT version FROM job_schema_migrations').all(), [{ version: 1 }, { version: 2 }]);
  raw.close();
  tmp.cleanup();
});

test('openJobQueue: SQLite at <dataDir>/jobs.db without DATABASE_URL, pg-boss with it', async () => {
  const tmp = tempDir();
  const q = await openJobQueue(testConfig({ DATABASE_URL: undefined }, tmp.dir));
  assert.equal(q.kind, 'sqlite');
  await q.migrate();
  await q.close();
  assert.ok(existsSync(path.join(tmp.dir, 'jobs.db')));
  const pgq = await openJobQueue(testConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }, tmp.dir));
  assert.equal(pgq.kind, 'postgres');
  await pgq.close();
  const config = testConfig(
    {
      PARLA_JOB_RETENTION_DAYS: '30',
      PARLA_FETCH_ALLOW_HOSTS: ' Media.Local ,cdn.internal',
      PARLA_FETCH_ALLOW_PRIVATE: 'true',
      PARLA_JOB_CONCURRENCY: '3',
      PARLA_JOB_LEASE_SECONDS: '20',
      PARLA_JOB_ACCOUNT_CONCURRENCY: '1',
      PARLA_FETCH_CONNECT_TIMEOUT_SECONDS: '5',
      PARLA_FETCH_IDLE_TIMEOUT_SECONDS: '15',
      PARLA_FETCH_TOTAL_TIMEOUT_SECONDS: '600',
      PARLA_FETCH_MIN_KB_PER_SECOND: '64',
      PARLA_FETCH_RATE_WINDOW_SECONDS: '10',
    },
    tmp.dir,
  );
  assert.deepEqual(config.jobs, {
    retentionDays: 30,
    maxBytes: 1024 ** 3,
    fetchAllowPrivate: true,
    fetchAllowHosts: ['media.local', 'cdn.internal'],
    concurrency: 3,
    leaseSeconds: 20,
    accountConcurrency: 1,
    download: {
      connectTimeoutMs: 5000,
      idleTimeoutMs: 15_000,
      totalTimeoutMs: 600_000,
      minBytesPerSecond: 64 * 1024,
      rateWindowMs: 10_000,
    },
  });
  const defaults = testConfig({ PARLA_WORKERS: '2' }, tmp.dir).jobs;
  assert.equal(defaults.retentionDays, 7);
  assert.equal(defaults.concurrency, 2, 'as many jobs at once as engine workers');
  assert.equal(defaults.leaseSeconds, 60);
  assert.equal(defaults.accountConcurrency, 1, "one account takes half the node's runners, rounded up");
  assert.deepEqual(defaults.download, {
    connectTimeoutMs: 10_000,
    idleTimeoutMs: 30_000,
    totalTimeoutMs: 1_800_000,
    minBytesPerSecond: 16 * 1024,
    rateWindowMs: 20_000,
  });
  assert.equal(testConfig({ PARLA_WORKERS: '5' }, tmp.dir).jobs.accountConcurrency, 3);
  tmp.cleanup();
});
