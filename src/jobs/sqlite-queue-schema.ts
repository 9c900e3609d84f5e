// The SQLite job queue's tables (sqlite-queue.ts), version by version.

export const SQLITE_JOB_MIGRATIONS: Array<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE stt_jobs (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'canceled')),
        progress REAL,
        params TEXT NOT NULL,
        source TEXT NOT NULL,
        callback_url TEXT,
        zero_retention INTEGER NOT NULL DEFAULT 0,
        idempotency_key TEXT,
        body_hash TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        attempts INTEGER NOT NULL DEFAULT 0,
        run_after INTEGER,
        lease_token TEXT,
        lease_owner TEXT,
        lease_expires_at INTEGER,
        credits_used INTEGER,
        result TEXT,
        result_deleted INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        webhook_id TEXT,
        webhook_state TEXT NOT NULL DEFAULT 'none',
        webhook_next_at INTEGER,
        webhook_attempt_count INTEGER NOT NULL DEFAULT 0,
        webhook_token TEXT
      );
      CREATE INDEX stt_jobs_account ON stt_jobs(account_id, created_at DESC, id DESC);
      CREATE INDEX stt_jobs_claim ON stt_jobs(status, created_at, id);
      CREATE UNIQUE INDEX stt_jobs_idempotency ON stt_jobs(account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE INDEX stt_jobs_webhook ON stt_jobs(webhook_state, webhook_next_at);
      CREATE INDEX stt_jobs_finished ON stt_jobs(finished_at);
      CREATE TABLE stt_job_webhook_attempts (
        job_id TEXT NOT NULL REFERENCES stt_jobs(id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        at INTEGER NOT NULL,
        status INTEGER,
        ok INTEGER NOT NULL,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (job_id, attempt)
      );
    `,
  },
  {
    // A run that began to bill its job (beginSettle) makes cancel() leave it running; fair_seq is
    // the job's round in the fair order across accounts (fairSeq() in queue.ts).
    version: 2,
    sql: `
      ALTER TABLE stt_jobs ADD COLUMN settling INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE stt_jobs ADD COLUMN fair_seq INTEGER NOT NULL DEFAULT 0;
      DROP INDEX stt_jobs_claim;
      CREATE INDEX stt_jobs_claim ON stt_jobs(status, fair_seq, created_at, id);
      CREATE INDEX stt_jobs_account_open ON stt_jobs(account_id, status, fair_seq);
    `,
  },
];
