// PgBossJobQueue: the queue for many nodes, on PostgreSQL with pg-boss (10.x: the line that runs
// on Node 20 and pg 8; it claims with FOR UPDATE SKIP LOCKED and retries with backoff).
//
// pg-boss keeps a job as a message: state created/retry/active/completed/cancelled/failed, its
// data, an output. It has no place for what the API shows (progress, the result, the API error,
// credits, webhook attempts, an account-scoped listing with cursor paging) and, in 10.x, no
// heartbeat: an active job expires only after a fixed expireIn. So the job records live in our own
// table, stt_jobs (the same layout as the SQLite queue), and pg-boss does the queue part: one
// pg-boss job per API job, fetched (claimed) with SKIP LOCKED, failed back to `retry` when its
// worker's lease runs out or the worker asks for a retry, and completed or cancelled when it ends.
// Every pg-boss call runs inside the same transaction as the stt_jobs row it goes with (pg-boss's
// `db` option), so the two never disagree after a crash.
//
// The lease (token, expiry, heartbeat) is ours, on the stt_jobs row: take-over happens when the
// lease runs out, seconds after a node dies, not after pg-boss's expiry. pg-boss's own expiry stays
// as a backstop at 23 h (its maximum is 24 h); should it fire under a job whose lease is still
// renewed, the next fetch sees the live lease and leaves the job with its worker.

import pg from 'pg';
import PgBoss from 'pg-boss';
import { randomUUID } from 'node:crypto';
import { ABANDONED, attemptFromRow, jobFromRow, jobWithHeldResult, type AttemptRow, type JobRow } from './job-rows.js';
import {
  clampLimit,
  clampProgress,
  decodeCursor,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_RETRY_DELAY_MS,
  encodeCursor,
  IDEMPOTENCY_MS,
  IdempotencyConflictError,
  newJobId,
  newToken,
  type Claimed,
  type JobError,
  type JobQueue,
  type JobRecord,
  type JobStatus,
  type Lease,
  type NewJob,
  type Page,
  type QueueDepth,
  type QueueOptions,
  type WebhookAttempt,
  type WebhookDelivery,
} from './queue.js';

const QUEUE = 'parla-stt-jobs';
const MIGRATION_LOCK = 7_734_223;

const MIGRATIONS: Array<{ version: number; sql: string }> = [
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
];

type Q = Pick<pg.PoolClient, 'query'>;
type Row = JobRow & { boss_id: string };

export interface PgBossQueueOptions extends QueueOptions {
  /** pg-boss's schema (default "pgboss"); tests give each run its own. */
  bossSchema?: string;
  poolMax?: number;
  /** pg-boss's background errors (maintenance, supervision); the server logs them. */
  onError?: (err: Error) => void;
}

/** pg-boss's `db` option: run its statements on our transaction's client. */
function onClient(q: Q): PgBoss.Db {
  return { executeSql: async (text: string, values: unknown[]) => q.query(text, values) as Promise<{ rows: unknown[] }> };
}

export class PgBossJobQueue implements JobQueue {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly boss: PgBoss;
  private readonly maxAttempts: number;
  private readonly idempotencyMs: number;
  private readonly retryDelay: number;
  private readonly now: () => Date;
  private started = false;

  constructor(connectionString: string, opts: PgBossQueueOptions = {}) {
    this.pool = new pg.Pool({ connectionString, max: opts.poolMax ?? 5, connectionTimeoutMillis: 3000, idleTimeoutMillis: 30_000 });
    this.pool.on('error', () => undefined);
    this.maxAttempts = opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.idempotencyMs = opts.idempotencyMs ?? IDEMPOTENCY_MS;
    // pg-boss counts whole seconds and doubles from the first retry on (with jitter).
    this.retryDelay = Math.ceil((opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS) / 1000);
    this.now = opts.now ?? (() => new Date());
    this.boss = new PgBoss({
      db: onClient(this.pool),
      schema: opts.bossSchema ?? 'pgboss',
      // Cron scheduling is not used; supervision keeps pg-boss's expiry backstop and archive.
      schedule: false,
    });
    this.boss.on('error', (err: Error) => opts.onError?.(err));
  }

  private async tx<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => { broken = true; });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async migrate(): Promise<void> {
    if (!this.started) {
      await this.boss.start();
      this.started = true;
    }
    const client = await this.pool.connect();
    try {
      // Two nodes starting at once: the second waits, then finds nothing left to do.
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS job_schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM job_schema_migrations')).rows.map((r) => r.version));
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        await client.query(m.sql);
        await client.query('INSERT INTO job_schema_migrations (version) VALUES ($1)', [m.version]);
        await client.query('COMMIT');
      }
      if (!(await this.boss.getQueue(QUEUE))) {
        await this.boss.createQueue(QUEUE, {
          name: QUEUE,
          policy: 'standard',
          retryLimit: 1000,
          retryDelay: this.retryDelay,
          retryBackoff: this.retryDelay > 0,
          expireInSeconds: 23 * 3600,
        });
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.started) await this.boss.stop({ graceful: false, close: false, wait: true }).catch(() => undefined);
    this.started = false;
    await this.pool.end().catch(() => undefined);
  }

  private async attempts(q: Q, id: string): Promise<WebhookAttempt[]> {
    return (await q.query<AttemptRow>('SELECT * FROM stt_job_webhook_attempts WHERE job_id = $1 ORDER BY attempt', [id])).rows.map(attemptFromRow);
  }

  private async record(q: Q, id: string): Promise<JobRecord | null> {
    const { rows } = await q.query<Row>('SELECT * FROM stt_jobs WHERE id = $1', [id]);
    return rows[0] ? jobFromRow(rows[0], await this.attempts(q, id), 'parsed') : null;
  }

  async enqueue(job: NewJob): Promise<{ job: JobRecord; created: boolean }> {
    if (job.idempotencyKey !== null && job.bodyHash === null) throw new Error('an idempotency key needs the body hash');
    const { id, created } = await this.tx(async (q) => {
      const now = this.now();
      if (job.idempotencyKey !== null) {
        // Concurrent requests with one key wait for each other here, then see the first one's job.
        // Account ids never hold a '/', so account + '/' + key is unambiguous.
        await q.query("SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))", [job.accountId, job.idempotencyKey]);
        const { rows } = await q.query<{ id: string; body_hash: string; created_at: Date }>('SELECT id, body_hash, created_at FROM stt_jobs WHERE account_id = $1 AND idempotency_key = $2', [job.accountId, job.idempotencyKey]);
        const prior = rows[0];
        if (prior && prior.created_at.getTime() > now.getTime() - this.idempotencyMs) {
          if (prior.body_hash !== job.bodyHash) throw new IdempotencyConflictError(prior.id);
          return { id: prior.id, created: false };
        }
        if (prior) await q.query('UPDATE stt_jobs SET idempotency_key = NULL WHERE id = $1', [prior.id]);
      }
      const id = newJobId();
      const bossId = randomUUID();
      await q.query(
        `INSERT INTO stt_jobs (id, account_id, key_id, mode, status, params, source, callback_url, zero_retention, idempotency_key, body_hash, created_at, boss_id)
         VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10, $11, $12)`,
        [id, job.accountId, job.keyId, job.mode, JSON.stringify(job.params), JSON.stringify(job.source), job.callbackUrl, !!job.zeroRetention, job.idempotencyKey, job.bodyHash, now, bossId],
      );
      // retryLimit is only a ceiling: stt_jobs.attempts against maxAttempts decides when a job
      // stops, so pg-boss must never be the one to give up first.
      await this.boss.send(QUEUE, { jobId: id }, { id: bossId, retryLimit: 1000, retryDelay: this.retryDelay, retryBackoff: this.retryDelay > 0, db: onClient(q) });
      return { id, created: true };
    });
    return { job: (await this.record(this.pool, id))!, created };
  }

  async get(accountId: string, jobId: string): Promise<JobRecord | null> {
    const { rows } = await this.pool.query<Row>('SELECT * FROM stt_jobs WHERE id = $1 AND account_id = $2', [jobId, accountId]);
    return rows[0] ? jobFromRow(rows[0], await this.attempts(this.pool, jobId), 'parsed') : null;
  }

  async list(accountId: string, opts: { limit?: number; cursor?: string | null; status?: JobStatus } = {}): Promise<Page> {
    const limit = clampLimit(opts.limit);
    const cursor = opts.cursor ? decodeCursor(opts.cursor) : null;
    const where = ['account_id = $1'];
    const args: unknown[] = [accountId];
    if (cursor) {
      args.push(new Date(cursor.createdAt), cursor.id);
      where.push(`(created_at, id) < ($${args.length - 1}, $${args.length})`);
    }
    if (opts.status) {
      args.push(opts.status);
      where.push(`status = $${args.length}`);
    }
    args.push(limit + 1);
    const { rows } = await this.pool.query<Row>(`SELECT * FROM stt_jobs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${args.length}`, args);
    const page: JobRecord[] = [];
    for (const r of rows.slice(0, limit)) page.push(jobFromRow(r, await this.attempts(this.pool, r.id), 'parsed'));
    const last = page[page.length - 1];
    return { jobs: page, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
  }

  /** Ends a job (the row must be locked by the caller) and its pg-boss job with it. */
  private async finish(q: Q, r: Row, status: 'completed' | 'failed' | 'canceled', fields: { result?: unknown; error?: JobError; creditsUsed?: number | null }): Promise<void> {
    const now = this.now();
    const webhook = status !== 'canceled' && r.callback_url !== null;
    const keepResult = fields.result !== undefined && (!r.zero_retention || webhook);
    await q.query(
      `UPDATE stt_jobs SET status = $1, finished_at = $2, progress = CASE WHEN $1 = 'completed' THEN 1 ELSE progress END,
         lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL,
         result = $3, error = $4, credits_used = $5, webhook_id = $6, webhook_state = $7, webhook_next_at = $8
       WHERE id = $9`,
      [
        status,
        now,
        keepResult ? JSON.stringify(fields.result) : null,
        fields.error ? JSON.stringify(fields.error) : null,
        fields.creditsUsed ?? (status === 'completed' ? 0 : null),
        webhook ? `whk_${newToken()}` : null,
        webhook ? 'pending' : 'none',
        webhook ? now : null,
        r.id,
      ],
    );
    // The pg-boss job is done being processed whatever the API outcome (stt_jobs holds that):
    // completed when a worker held it, cancelled when it was still waiting.
    const db = onClient(q);
    if (r.status === 'running') await this.boss.complete(QUEUE, r.boss_id, { status }, { db });
    else await this.boss.cancel(QUEUE, r.boss_id, { db });
  }

  /** Running jobs whose lease ran out: back to pg-boss's retry, or failed after the last attempt. */
  private async sweepExpired(): Promise<void> {
    await this.tx(async (q) => {
      const { rows } = await q.query<Row>("SELECT * FROM stt_jobs WHERE status = 'running' AND lease_expires_at <= $1 ORDER BY lease_expires_at LIMIT 20 FOR UPDATE SKIP LOCKED", [this.now()]);
      for (const r of rows) {
        if (r.attempts >= this.maxAttempts) {
          await this.finish(q, r, 'failed', { error: ABANDONED(r.attempts) });
        } else {
          await q.query("UPDATE stt_jobs SET status = 'queued', lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL WHERE id = $1", [r.id]);
          await this.boss.fail(QUEUE, r.boss_id, { reason: 'lease expired' }, { db: onClient(q) });
        }
      }
    });
  }

  async claim(workerId: string, leaseMs: number): Promise<Claimed | null> {
    await this.sweepExpired();
    for (let i = 0; i < 50; i++) {
      const out = await this.tx(async (q): Promise<Claimed | null | 'skip'> => {
        const [bj] = await this.boss.fetch<{ jobId: string }>(QUEUE, { batchSize: 1, db: onClient(q) });
        if (!bj) return null;
        const { rows } = await q.query<Row>('SELECT * FROM stt_jobs WHERE id = $1 FOR UPDATE', [bj.data.jobId]);
        const r = rows[0];
        if (!r || r.status !== 'queued') {
          // Canceled in between (finish() cancels the pg-boss job, so this is a rare race), or pg-boss's
          // expiry backstop fired under a live lease: then the fetch re-armed the job for its worker.
          if (!r) await this.boss.cancel(QUEUE, bj.id, { db: onClient(q) });
          else if (r.status !== 'running') await this.boss.complete(QUEUE, bj.id, { status: r.status }, { db: onClient(q) });
          return 'skip';
        }
        const now = this.now();
        const lease: Lease = { jobId: r.id, token: newToken(), workerId, expiresAt: new Date(now.getTime() + leaseMs) };
        await q.query(
          "UPDATE stt_jobs SET status = 'running', attempts = attempts + 1, started_at = COALESCE(started_at, $1), lease_token = $2, lease_owner = $3, lease_expires_at = $4 WHERE id = $5",
          [now, lease.token, workerId, lease.expiresAt, r.id],
        );
        return { job: (await this.record(q, r.id))!, lease };
      });
      if (out !== 'skip') return out;
    }
    return null;
  }

  async heartbeat(lease: Lease, leaseMs: number, progress?: number): Promise<boolean> {
    const expires = new Date(this.now().getTime() + leaseMs);
    const res = await this.pool.query(
      "UPDATE stt_jobs SET lease_expires_at = $1, progress = COALESCE($2, progress) WHERE id = $3 AND status = 'running' AND lease_token = $4",
      [expires, progress === undefined ? null : clampProgress(progress), lease.jobId, lease.token],
    );
    if (res.rowCount === 1) lease.expiresAt = expires;
    return res.rowCount === 1;
  }

  /** Runs fn on the locked row only while the lease is still the job's; true when it ran. */
  private async withLease(lease: Lease, fn: (q: Q, r: Row) => Promise<void>): Promise<boolean> {
    return this.tx(async (q) => {
      const { rows } = await q.query<Row>("SELECT * FROM stt_jobs WHERE id = $1 AND status = 'running' AND lease_token = $2 FOR UPDATE", [lease.jobId, lease.token]);
      if (!rows[0]) return false;
      await fn(q, rows[0]);
      return true;
    });
  }

  async complete(lease: Lease, outcome: { result: unknown; creditsUsed: number }): Promise<boolean> {
    return this.withLease(lease, (q, r) => this.finish(q, r, 'completed', { result: outcome.result, creditsUsed: outcome.creditsUsed }));
  }

  async fail(lease: Lease, error: JobError, opts: { retry?: boolean; creditsUsed?: number } = {}): Promise<boolean> {
    return this.withLease(lease, async (q, r) => {
      if (opts.retry && r.attempts < this.maxAttempts) {
        await q.query("UPDATE stt_jobs SET status = 'queued', lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL, error = $1 WHERE id = $2", [JSON.stringify(error), r.id]);
        await this.boss.fail(QUEUE, r.boss_id, { reason: error.code }, { db: onClient(q) });
      } else {
        await this.finish(q, r, 'failed', { error, creditsUsed: opts.creditsUsed ?? null });
      }
    });
  }

  async release(lease: Lease, delayMs: number): Promise<boolean> {
    return this.withLease(lease, async (q, r) => {
      // pg-boss's retry would count and back off; a fresh pg-boss job that starts after the delay does neither.
      await this.boss.complete(QUEUE, r.boss_id, { status: 'released' }, { db: onClient(q) });
      const bossId = randomUUID();
      await this.boss.send(QUEUE, { jobId: r.id }, { id: bossId, retryLimit: 1000, retryDelay: this.retryDelay, retryBackoff: this.retryDelay > 0, startAfter: Math.ceil(delayMs / 1000), db: onClient(q) });
      await q.query(
        "UPDATE stt_jobs SET status = 'queued', attempts = attempts - 1, started_at = CASE WHEN attempts <= 1 THEN NULL ELSE started_at END, progress = NULL, lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL, boss_id = $1 WHERE id = $2",
        [bossId, r.id],
      );
    });
  }

  async cancel(accountId: string, jobId: string): Promise<JobRecord | null> {
    await this.tx(async (q) => {
      const { rows } = await q.query<Row>('SELECT * FROM stt_jobs WHERE id = $1 AND account_id = $2 FOR UPDATE', [jobId, accountId]);
      const r = rows[0];
      if (r && (r.status === 'queued' || r.status === 'running')) await this.finish(q, r, 'canceled', {});
    });
    return this.get(accountId, jobId);
  }

  async deleteResult(accountId: string, jobId: string): Promise<JobRecord | null> {
    await this.pool.query("UPDATE stt_jobs SET result = NULL, result_deleted = true WHERE id = $1 AND account_id = $2 AND status IN ('completed', 'failed', 'canceled')", [jobId, accountId]);
    return this.get(accountId, jobId);
  }

  async purgeFinished(olderThan: Date): Promise<number> {
    // pg-boss deletes its own finished jobs after its retention; only our records are purged here.
    const res = await this.pool.query("DELETE FROM stt_jobs WHERE status IN ('completed', 'failed', 'canceled') AND finished_at < $1 AND webhook_state <> 'pending'", [olderThan]);
    return res.rowCount ?? 0;
  }

  async depth(): Promise<QueueDepth> {
    const { rows } = await this.pool.query<{ queued: number; running: number; pending: number }>(
      `SELECT COUNT(*) FILTER (WHERE status = 'queued')::int AS queued, COUNT(*) FILTER (WHERE status = 'running')::int AS running,
              COUNT(*) FILTER (WHERE webhook_state = 'pending')::int AS pending
       FROM stt_jobs WHERE status IN ('queued', 'running') OR webhook_state = 'pending'`,
    );
    return { queued: rows[0]!.queued, running: rows[0]!.running, webhooksPending: rows[0]!.pending };
  }

  async claimWebhooks(limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    return this.tx(async (q) => {
      const now = this.now();
      const { rows } = await q.query<Row>("SELECT * FROM stt_jobs WHERE webhook_state = 'pending' AND webhook_next_at <= $1 ORDER BY webhook_next_at LIMIT $2 FOR UPDATE SKIP LOCKED", [now, limit]);
      const out: WebhookDelivery[] = [];
      for (const r of rows) {
        const token = newToken();
        // The lease is the next-attempt time moved ahead: a dispatcher that dies mid-POST leaves
        // the delivery due again after leaseMs, for any node to pick up.
        await q.query('UPDATE stt_jobs SET webhook_next_at = $1, webhook_token = $2 WHERE id = $3', [new Date(now.getTime() + leaseMs), token, r.id]);
        out.push({ job: jobWithHeldResult(r, await this.attempts(q, r.id), 'parsed'), webhookId: r.webhook_id!, attempt: Number(r.webhook_attempt_count) + 1, token });
      }
      return out;
    });
  }

  async recordWebhookAttempt(d: WebhookDelivery, a: WebhookAttempt, nextAt: Date | null): Promise<void> {
    await this.tx(async (q) => {
      // A stale dispatcher (its lease ran out and another took the delivery) records nothing.
      const { rows } = await q.query<{ zero_retention: boolean }>("SELECT zero_retention FROM stt_jobs WHERE id = $1 AND webhook_state = 'pending' AND webhook_token = $2 FOR UPDATE", [d.job.id, d.token]);
      if (!rows[0]) return;
      await q.query('INSERT INTO stt_job_webhook_attempts (job_id, attempt, at, status, ok, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING', [
        d.job.id,
        a.attempt,
        a.at,
        a.status,
        a.ok,
        a.error,
        Math.round(a.durationMs),
      ]);
      const state = nextAt ? 'pending' : a.ok ? 'delivered' : 'failed';
      await q.query(
        `UPDATE stt_jobs SET webhook_attempt_count = webhook_attempt_count + 1, webhook_state = $1, webhook_next_at = $2, webhook_token = NULL${!nextAt && rows[0].zero_retention ? ', result = NULL' : ''} WHERE id = $3`,
        [state, nextAt, d.job.id],
      );
    });
  }
}
