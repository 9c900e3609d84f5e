import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteJobQueue } from '../../src/jobs/sqlite-queue.js';
import { tempDir } from '../helpers/env.js';
import { newJob, runQueueContract } from './queue-contract.js';

runQueueContract('SqliteJobQueue', async () => {
  const tmp = tempDir();
  const file = path.join(tmp.dir, 'jobs.db');
  return { open: async (opts) => new SqliteJobQueue(file, opts), cleanup: async () => tmp.cleanup() };
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
  assert.deepEqual(raw.prepare('SELECT version FROM job_schema_migrations').all(), [{ version: 1 }]);
  raw.close();
  tmp.cleanup();
});
