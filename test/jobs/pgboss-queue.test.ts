// The PostgreSQL job queue (records in stt_jobs, pg-boss for the claim) through the contract suite, each run on a fresh schema and a fresh pg-boss schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PgBossJobQueue } from '../../src/jobs/pgboss-queue.js';
import { freshPgSchema, PG_BASE_URL } from '../helpers/env.js';
import { newJob, runQueueContract } from './queue-contract.js';

async function dropSchema(name: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_BASE_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  await c.end();
}

runQueueContract('PgBossJobQueue', async () => {
  const schema = await freshPgSchema();
  const bossSchema = `${schema.schema}_boss`;
  return {
    open: async (opts) => new PgBossJobQueue(schema.url, { retryDelayMs: 0, ...opts, bossSchema }),
    cleanup: async () => {
      await schema.drop();
      await dropSchema(bossSchema);
    },
  };
});

test('pg-boss carries each job: one pg-boss job per API job, completed with the outcome; two nodes migrate at once', async () => {
  const schema = await freshPgSchema();
  const bossSchema = `${schema.schema}_boss`;
  const a = new PgBossJobQueue(schema.url, { bossSchema, retryDelayMs: 0 });
  const b = new PgBossJobQueue(schema.url, { bossSchema, retryDelayMs: 0 });
  try {
    await Promise.all([a.migrate(), b.migrate()]);
    const { job } = await a.enqueue(newJob('acc_boss'));
    const c = await b.claim('w', 60_000);
    assert.equal(c?.job.id, job.id);
    assert.equal(await b.complete(c!.lease, { result: { text: 'x' }, creditsUsed: 1 }), true);
    const client = new pg.Client({ connectionString: PG_BASE_URL });
    await client.connect();
    const { rows } = await client.query(
      `SELECT j.state, j.output FROM ${bossSchema}.job j JOIN ${schema.schema}.stt_jobs s ON s.boss_id = j.id WHERE s.id = $1`,
      [job.id],
    );
    await client.end();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].state, 'completed');
    assert.deepEqual(rows[0].output, { status: 'completed' });
  } finally {
    await a.close();
    await b.close();
    await schema.drop();
    await dropSchema(bossSchema);
  }
});
