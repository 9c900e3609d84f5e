// The PostgreSQL job queue's own tables (pgboss-queue.ts; pg-boss keeps its own schema), version by version.

import type pg from 'pg';
import { applyMigrations, type Migration } from '../storage/postgres/database.js';

/** The advisory lock the migration holds; the caller releases it (after creating pg-boss's queue). */
export const MIGRATION_LOCK = 7_734_223;

/**
 * Applies the versions not applied yet, under the lock: two nodes starting at once, the second
 * waits, then finds nothing left to do. The lock stays held for the caller's further steps.
 */
export async function migrateJobTables(client: pg.PoolClient): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  await applyMigrations(client, 'job_schema_migrations', PG_JOB_MIGRATIONS, async (apply) => {
    await client.query('BEGIN');
    await apply();
    await client.query('COMMIT');
  });
}

export const PG_JOB_MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE stt_jobs (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'canceled')),
        progress DOUBLE PRECISION,
        params JSONB NOT NULL,
        source JSONB NOT NULL,
        callback_url TEXT,
        zero_retention BOOLEAN NOT NULL DEFAULT false,
        idempotency_key TEXT,
        body_hash TEXT,
        created_at TIMESTAMPTZ NOT NULL,
        started_at TIMESTAMPTZ,
        finished_at TIMESTAMPTZ,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_token TEXT,
        lease_owner TEXT,
        lease_expires_at TIMESTAMPTZ,
        credits_used BIGINT,
        result JSONB,
        result_deleted BOOLEAN NOT NULL DEFAULT false,
        error JSONB,
        webhook_id TEXT,
        webhook_state TEXT NOT NULL DEFAULT 'none',
        webhook_next_at TIMESTAMPTZ,
        webhook_attempt_count INTEGER NOT NULL DEFAULT 0,
        webhook_token TEXT,
        boss_id UUID NOT NULL
      );
      CREATE INDEX stt_jobs_account ON stt_jobs(account_id, created_at DESC, id DESC);
      CREATE INDEX stt_jobs_lease ON stt_jobs(lease_expires_at) WHERE status = 'running';
      CREATE UNIQUE INDEX stt_jobs_idempotency ON stt_jobs(account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE INDEX stt_jobs_webhook ON stt_jobs(webhook_next_at) WHERE webhook_state = 'pending';
      CREATE INDEX stt_jobs_finished ON stt_jobs(finished_at);
      CREATE TABLE stt_job_webhook_attempts (
        job_id TEXT NOT NULL REFERENCES stt_jobs(id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        at TIMESTAMPTZ NOT NULL,
        status INTEGER,
        ok BOOLEAN NOT NULL,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (job_id, attempt)
      );
    `,
  },
  {
    // A run that began to bill its job (beginSettle) makes cancel() leave it running; fair_seq is
    // the job's round in the fair order across accounts (fairSeq() in queue.ts), which the pg-boss
    // job carries as its priority (-fair_seq: pg-boss fetches by priority, then age).
    version: 2,
    sql: `
      ALTER TABLE stt_jobs ADD COLUMN settling BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE stt_jobs ADD COLUMN fair_seq INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX stt_jobs_account_open ON stt_jobs(account_id, fair_seq) WHERE status IN ('queued', 'running');
      CREATE INDEX stt_jobs_queued_seq ON stt_jobs(fair_seq) WHERE status = 'queued';
    `,
  },
];
