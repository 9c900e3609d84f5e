// SqliteJobQueue: the embedded one-node queue, on better-sqlite3 in WAL mode.
//
// It lives in its own file (<dataDir>/jobs.db), not in parla.db: SQLite has one writer per file,
// and progress heartbeats, webhook attempts and retention purges (deleting megabytes of results)
// must not queue behind billing commits. Nothing needs one transaction across both: the runner
// holds credits under the job id, and a hold settles at most once (the ledger's unique hold_id),
// so a crash between the two files can neither double-charge nor lose the job.
//
// Claims run in BEGIN IMMEDIATE transactions, so even a second process on the same file (a
// restarted node while the old one is still exiting) cannot claim the same job.

import type Database from 'better-sqlite3';
import { applyMigrations, SqliteDatabase } from '../storage/sqlite/database.js';
import { SQLITE_JOB_MIGRATIONS as MIGRATIONS } from './sqlite-queue-schema.js';
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
  fairSeq,
  type Claimed,
  type ClaimOptions,
  type JobError,
  type JobQueue,
  type JobRecord,
  type Lease,
  type ListOptions,
  type NewJob,
  type Page,
  type QueueDepth,
  type QueueOptions,
  type WebhookAttempt,
  type WebhookDelivery,
} from './queue.js';

export class SqliteJobQueue implements JobQueue {
  readonly kind = 'sqlite' as const;
  private readonly conn: SqliteDatabase;
  private readonly db: Database.Database;
  private readonly maxAttempts: number;
  private readonly idempotencyMs: number;
  private readonly retryDelayMs: number;
  private readonly now: () => Date;

  constructor(file: string, opts: QueueOptions = {}) {
    this.conn = new SqliteDatabase(file);
    this.db = this.conn.db;
    this.maxAttempts = opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.idempotencyMs = opts.idempotencyMs ?? IDEMPOTENCY_MS;
    this.retryDelayMs = opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    this.now = opts.now ?? (() => new Date());
  }

  private sql(text: string): Database.Statement {
    return this.conn.sql(text);
  }

  private t(): number {
    return this.now().getTime();
  }

  async migrate(): Promise<void> {
    // Its own version table: the job schema evolves apart from the store's (src/storage/sqlite).
    applyMigrations(this.db, 'job_schema_migrations', MIGRATIONS);
  }

  async close(): Promise<void> {
    this.conn.close();
  }

  private row(id: string): JobRow | undefined {
    return this.sql('SELECT * FROM stt_jobs WHERE id = ?').get(id) as JobRow | undefined;
  }

  private attempts(id: string): WebhookAttempt[] {
    return (this.sql('SELECT * FROM stt_job_webhook_attempts WHERE job_id = ? ORDER BY attempt').all(id) as AttemptRow[]).map(
      attemptFromRow,
    );
  }

  private record(id: string): JobRecord | null {
    const r = this.row(id);
    return r ? jobFromRow(r, this.attempts(id), 'text') : null;
  }

  async enqueue(job: NewJob): Promise<{ job: JobRecord; created: boolean }> {
    if (job.idempotencyKey !== null && job.bodyHash === null) throw new Error('an idempotency key needs the body hash');
    const tx = this.db.transaction((): { id: string; created: boolean } => {
      const now = this.t();
      if (job.idempotencyKey !== null) {
        const prior = this.sql('SELECT id, body_hash, created_at FROM stt_jobs WHERE account_id = ? AND idempotency_key = ?').get(
          job.accountId,
          job.idempotencyKey,
        ) as { id: string; body_hash: string; created_at: number } | undefined;
        if (prior && prior.created_at > now - this.idempotencyMs) {
          if (prior.body_hash !== job.bodyHash) throw new IdempotencyConflictError(prior.id);
          return { id: prior.id, created: false };
        }
        // Older than the window: the key is free again.
        if (prior) this.sql('UPDATE stt_jobs SET idempotency_key = NULL WHERE id = ?').run(prior.id);
      }
      const id = newJobId();
      const last = this.sql("SELECT MAX(fair_seq) AS s FROM stt_jobs WHERE account_id = ? AND status IN ('queued', 'running')").get(
        job.accountId,
      ) as { s: number | null };
      const head = this.sql("SELECT MIN(fair_seq) AS s FROM stt_jobs WHERE status = 'queued'").get() as { s: number | null };
      this.sql(
        `INSERT INTO stt_jobs (id, account_id, key_id, mode, status, params, source, callback_url, zero_retention, idempotency_key, body_hash, created_at, fair_seq)
           VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        job.accountId,
        job.keyId,
        job.mode,
        JSON.stringify(job.params),
        JSON.stringify(job.source),
        job.callbackUrl,
        job.zeroRetention ? 1 : 0,
        job.idempotencyKey,
        job.bodyHash,
        now,
        fairSeq(last.s, head.s),
      );
      return { id, created: true };
    });
    const { id, created } = tx.immediate();
    return { job: this.record(id)!, created };
  }

  async get(accountId: string, jobId: string): Promise<JobRecord | null> {
    const r = this.row(jobId);
    return r && r.account_id === accountId ? jobFromRow(r, this.attempts(jobId), 'text') : null;
  }

  async list(accountId: string, opts: ListOptions = {}): Promise<Page> {
    const limit = clampLimit(opts.limit);
    const cursor = opts.cursor ? decodeCursor(opts.cursor) : null;
    const where = ['account_id = ?'];
    const args: unknown[] = [accountId];
    if (cursor) {
      where.push('(created_at < ? OR (created_at = ? AND id < ?))');
      args.push(cursor.createdAt, cursor.createdAt, cursor.id);
    }
    if (opts.status) {
      where.push('status = ?');
      args.push(opts.status);
    }
    if (opts.mode) {
      where.push('mode = ?');
      args.push(opts.mode);
    }
    const rows = this.sql(`SELECT * FROM stt_jobs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`).all(
      ...args,
      limit + 1,
    ) as JobRow[];
    const page = rows.slice(0, limit).map((r) => jobFromRow(r, this.attempts(r.id), 'text'));
    const last = page[page.length - 1];
    return { jobs: page, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
  }

  /** Ends a job: status, finish time, and a pending webhook for completed/failed jobs with a callback. */
  private finish(
    id: string,
    status: 'completed' | 'failed' | 'canceled',
    fields: { result?: unknown; error?: JobError; creditsUsed?: number | null },
  ): void {
    const now = this.t();
    const r = this.row(id)!;
    const webhook = status !== 'canceled' && r.callback_url !== null;
    // Zero retention: the result is kept only while a webhook still has to carry it.
    const keepResult = fields.result !== undefined && (!r.zero_retention || webhook);
    this.sql(
      `UPDATE stt_jobs SET status = ?, finished_at = ?, progress = CASE WHEN ? = 'completed' THEN 1 ELSE progress END,
           lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL,
           result = ?, error = ?, credits_used = ?,
           webhook_id = ?, webhook_state = ?, webhook_next_at = ?
         WHERE id = ?`,
    ).run(
      status,
      now,
      status,
      keepResult ? JSON.stringify(fields.result) : null,
      fields.error ? JSON.stringify(fields.error) : null,
      fields.creditsUsed ?? (status === 'completed' ? 0 : null),
      webhook ? `whk_${newToken()}` : null,
      webhook ? 'pending' : 'none',
      webhook ? now : null,
      id,
    );
  }

  async claim(workerId: string, leaseMs: number, opts: ClaimOptions = {}): Promise<Claimed | null> {
    // The skipped accounts as a JSON array: one prepared statement whatever their number.
    const skip = JSON.stringify(opts.skipAccounts ?? []);
    const tx = this.db.transaction((): Claimed | null => {
      const now = this.t();
      // Jobs whose lease ran out after their last allowed attempt fail for good.
      const dead = this.sql("SELECT id, attempts FROM stt_jobs WHERE status = 'running' AND lease_expires_at <= ? AND attempts >= ?").all(
        now,
        this.maxAttempts,
      ) as Array<{ id: string; attempts: number }>;
      for (const d of dead) this.finish(d.id, 'failed', { error: ABANDONED(d.attempts) });
      const notSkipped = 'account_id NOT IN (SELECT value FROM json_each(?))';
      const next =
        (this.sql(
          `SELECT id FROM stt_jobs WHERE status = 'queued' AND (run_after IS NULL OR run_after <= ?) AND ${notSkipped} ORDER BY fair_seq, created_at, id LIMIT 1`,
        ).get(now, skip) as { id: string } | undefined) ??
        (this.sql(
          `SELECT id FROM stt_jobs WHERE status = 'running' AND lease_expires_at <= ? AND ${notSkipped} ORDER BY created_at, id LIMIT 1`,
        ).get(now, skip) as { id: string } | undefined);
      if (!next) return null;
      const lease: Lease = { jobId: next.id, token: newToken(), workerId, expiresAt: new Date(now + leaseMs) };
      this.sql(
        "UPDATE stt_jobs SET status = 'running', attempts = attempts + 1, started_at = COALESCE(started_at, ?), lease_token = ?, lease_owner = ?, lease_expires_at = ? WHERE id = ?",
      ).run(now, lease.token, workerId, lease.expiresAt.getTime(), next.id);
      return { job: this.record(next.id)!, lease };
    });
    return tx.immediate();
  }

  async heartbeat(lease: Lease, leaseMs: number, progress?: number): Promise<boolean> {
    const expires = this.t() + leaseMs;
    const res =
      progress === undefined
        ? this.sql("UPDATE stt_jobs SET lease_expires_at = ? WHERE id = ? AND status = 'running' AND lease_token = ?").run(
            expires,
            lease.jobId,
            lease.token,
          )
        : this.sql("UPDATE stt_jobs SET lease_expires_at = ?, progress = ? WHERE id = ? AND status = 'running' AND lease_token = ?").run(
            expires,
            clampProgress(progress),
            lease.jobId,
            lease.token,
          );
    if (res.changes === 1) lease.expiresAt = new Date(expires);
    return res.changes === 1;
  }

  /** Runs fn only while the lease is still the job's; true when it ran. */
  private withLease(lease: Lease, fn: () => void): boolean {
    return this.db
      .transaction((): boolean => {
        const r = this.sql("SELECT 1 FROM stt_jobs WHERE id = ? AND status = 'running' AND lease_token = ?").get(lease.jobId, lease.token);
        if (!r) return false;
        fn();
        return true;
      })
      .immediate();
  }

  async beginSettle(lease: Lease): Promise<boolean> {
    return this.withLease(lease, () => this.sql('UPDATE stt_jobs SET settling = 1 WHERE id = ?').run(lease.jobId));
  }

  async complete(lease: Lease, outcome: { result: unknown; creditsUsed: number }): Promise<boolean> {
    return this.withLease(lease, () => this.finish(lease.jobId, 'completed', { result: outcome.result, creditsUsed: outcome.creditsUsed }));
  }

  async fail(lease: Lease, error: JobError, opts: { retry?: boolean; creditsUsed?: number } = {}): Promise<boolean> {
    return this.withLease(lease, () => {
      const r = this.row(lease.jobId)!;
      if (opts.retry && r.attempts < this.maxAttempts) {
        const runAfter = this.t() + this.retryDelayMs * 2 ** (r.attempts - 1);
        this.sql(
          "UPDATE stt_jobs SET status = 'queued', run_after = ?, lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL, error = ? WHERE id = ?",
        ).run(runAfter, JSON.stringify(error), lease.jobId);
      } else {
        this.finish(lease.jobId, 'failed', { error, creditsUsed: opts.creditsUsed ?? null });
      }
    });
  }

  async release(lease: Lease, delayMs: number): Promise<boolean> {
    return this.withLease(lease, () => {
      this.sql(
        "UPDATE stt_jobs SET status = 'queued', attempts = attempts - 1, started_at = CASE WHEN attempts <= 1 THEN NULL ELSE started_at END, progress = NULL, run_after = ?, lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL WHERE id = ?",
      ).run(this.t() + delayMs, lease.jobId);
    });
  }

  async cancel(accountId: string, jobId: string): Promise<JobRecord | null> {
    this.db
      .transaction(() => {
        const r = this.row(jobId);
        // A run that began to bill the job finishes it (decision #35): the job stays as it is.
        if (r && r.account_id === accountId && (r.status === 'queued' || r.status === 'running') && !r.settling)
          this.finish(jobId, 'canceled', {});
      })
      .immediate();
    return this.get(accountId, jobId);
  }

  async deleteResult(accountId: string, jobId: string): Promise<JobRecord | null> {
    this.sql(
      "UPDATE stt_jobs SET result = NULL, result_deleted = 1 WHERE id = ? AND account_id = ? AND status IN ('completed', 'failed', 'canceled')",
    ).run(jobId, accountId);
    return this.get(accountId, jobId);
  }

  async purgeFinished(olderThan: Date): Promise<number> {
    return this.sql(
      "DELETE FROM stt_jobs WHERE status IN ('completed', 'failed', 'canceled') AND finished_at < ? AND webhook_state <> 'pending'",
    ).run(olderThan.getTime()).changes;
  }

  async depth(): Promise<QueueDepth> {
    const rows = this.sql(
      "SELECT status, COUNT(*) AS n FROM stt_jobs WHERE status IN ('queued', 'running') GROUP BY status",
    ).all() as Array<{ status: string; n: number }>;
    const pending = this.sql("SELECT COUNT(*) AS n FROM stt_jobs WHERE webhook_state = 'pending'").get() as { n: number };
    const by = new Map(rows.map((r) => [r.status, r.n]));
    return { queued: by.get('queued') ?? 0, running: by.get('running') ?? 0, webhooksPending: pending.n };
  }

  async claimWebhooks(limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    return this.db
      .transaction((): WebhookDelivery[] => {
        const now = this.t();
        const rows = this.sql(
          "SELECT * FROM stt_jobs WHERE webhook_state = 'pending' AND webhook_next_at <= ? ORDER BY webhook_next_at LIMIT ?",
        ).all(now, limit) as JobRow[];
        return rows.map((r) => {
          const token = newToken();
          // The lease is the next-attempt time moved ahead: a dispatcher that dies mid-POST leaves
          // the delivery due again after leaseMs, for any dispatcher to pick up.
          this.sql('UPDATE stt_jobs SET webhook_next_at = ?, webhook_token = ? WHERE id = ?').run(now + leaseMs, token, r.id);
          return {
            job: jobWithHeldResult(r, this.attempts(r.id), 'text'),
            webhookId: r.webhook_id!,
            attempt: Number(r.webhook_attempt_count) + 1,
            token,
          };
        });
      })
      .immediate();
  }

  async deferWebhook(d: WebhookDelivery, at: Date): Promise<void> {
    this.sql(
      "UPDATE stt_jobs SET webhook_next_at = ?, webhook_token = NULL WHERE id = ? AND webhook_state = 'pending' AND webhook_token = ?",
    ).run(at.getTime(), d.job.id, d.token);
  }

  async recordWebhookAttempt(d: WebhookDelivery, a: WebhookAttempt, nextAt: Date | null): Promise<void> {
    this.db
      .transaction(() => {
        // A stale dispatcher (its lease ran out and another took the delivery) records nothing.
        const r = this.sql("SELECT zero_retention FROM stt_jobs WHERE id = ? AND webhook_state = 'pending' AND webhook_token = ?").get(
          d.job.id,
          d.token,
        ) as { zero_retention: number } | undefined;
        if (!r) return;
        this.sql(
          'INSERT OR IGNORE INTO stt_job_webhook_attempts (job_id, attempt, at, status, ok, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ).run(d.job.id, a.attempt, a.at.getTime(), a.status, a.ok ? 1 : 0, a.error, Math.round(a.durationMs));
        const state = nextAt ? 'pending' : a.ok ? 'delivered' : 'failed';
        this.sql(
          `UPDATE stt_jobs SET webhook_attempt_count = webhook_attempt_count + 1, webhook_state = ?, webhook_next_at = ?, webhook_token = NULL${!nextAt && r.zero_retention ? ', result = NULL' : ''} WHERE id = ?`,
        ).run(state, nextAt ? nextAt.getTime() : null, d.job.id);
      })
      .immediate();
  }
}
