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
import { inTransaction, type Q } from '../storage/postgres/database.js';
import { randomUUID } from 'node:crypto';
import { BossMessages } from './pgboss-messages.js';
import { migrateJobTables, MIGRATION_LOCK } from './pgboss-schema.js';
import { ABANDONED, jobFromRow, type JobRow } from './job-rows.js';
import { claimDueWebhooks, deferWebhookRow, idempotentPrior, listJobs, recordWebhookRow, webhookAttempts } from './pgboss-records.js';
import {
  clampProgress,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_RETRY_DELAY_MS,
  IDEMPOTENCY_MS,
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

/** A job passed over for its account's share (claim's skipAccounts) is due again after this. */
const DEFER_MS = 2000;
const MAX_DEFERS_PER_CLAIM = 5;
/** PostgreSQL's lock_not_available (FOR UPDATE NOWAIT on a row another transaction holds). */
const LOCK_NOT_AVAILABLE = '55P03';

type Row = JobRow & { boss_id: string };

export interface PgBossQueueOptions extends QueueOptions {
  /** pg-boss's schema (default "pgboss"); tests give each run its own. */
  bossSchema?: string;
  poolMax?: number;
  /** pg-boss's background errors (maintenance, supervision); the server logs them. */
  onError?: (err: Error) => void;
}

export class PgBossJobQueue implements JobQueue {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly boss: BossMessages;
  private readonly maxAttempts: number;
  private readonly idempotencyMs: number;
  private readonly now: () => Date;

  constructor(connectionString: string, opts: PgBossQueueOptions = {}) {
    this.pool = new pg.Pool({ connectionString, max: opts.poolMax ?? 5, connectionTimeoutMillis: 3000, idleTimeoutMillis: 30_000 });
    this.pool.on('error', () => undefined);
    this.maxAttempts = opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.idempotencyMs = opts.idempotencyMs ?? IDEMPOTENCY_MS;
    this.now = opts.now ?? (() => new Date());
    const retryDelaySeconds = Math.ceil((opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS) / 1000);
    this.boss = new BossMessages(this.pool, retryDelaySeconds, { schema: opts.bossSchema, onError: opts.onError });
  }

  private tx<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn);
  }

  async migrate(): Promise<void> {
    await this.boss.start();
    const client = await this.pool.connect();
    try {
      await migrateJobTables(client);
      await this.boss.createQueue();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.boss.stop();
    await this.pool.end().catch(() => undefined);
  }

  private attempts(q: Q, id: string): Promise<WebhookAttempt[]> {
    return webhookAttempts(q, id);
  }

  private async record(q: Q, id: string): Promise<JobRecord | null> {
    const { rows } = await q.query<Row>('SELECT * FROM stt_jobs WHERE id = $1', [id]);
    return rows[0] ? jobFromRow(rows[0], await this.attempts(q, id), 'parsed') : null;
  }

  async enqueue(job: NewJob): Promise<{ job: JobRecord; created: boolean }> {
    if (job.idempotencyKey !== null && job.bodyHash === null) throw new Error('an idempotency key needs the body hash');
    const { id, created } = await this.tx(async (q) => {
      const now = this.now();
      const prior = await idempotentPrior(q, job, now, this.idempotencyMs);
      if (prior) return { id: prior, created: false };
      const id = newJobId();
      const bossId = randomUUID();
      // Two enqueues at once may get the same round: harmless, age then orders them.
      const seqs = await q.query<{ last: number | null; head: number | null }>(
        "SELECT (SELECT MAX(fair_seq) FROM stt_jobs WHERE account_id = $1 AND status IN ('queued', 'running')) AS last, (SELECT MIN(fair_seq) FROM stt_jobs WHERE status = 'queued') AS head",
        [job.accountId],
      );
      const seq = fairSeq(seqs.rows[0]!.last, seqs.rows[0]!.head);
      await q.query(
        `INSERT INTO stt_jobs (id, account_id, key_id, mode, status, params, source, callback_url, zero_retention, idempotency_key, body_hash, created_at, boss_id, fair_seq)
         VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          id,
          job.accountId,
          job.keyId,
          job.mode,
          JSON.stringify(job.params),
          JSON.stringify(job.source),
          job.callbackUrl,
          !!job.zeroRetention,
          job.idempotencyKey,
          job.bodyHash,
          now,
          bossId,
          seq,
        ],
      );
      await this.boss.send(q, id, bossId, seq, 0);
      return { id, created: true };
    });
    return { job: (await this.record(this.pool, id))!, created };
  }

  async get(accountId: string, jobId: string): Promise<JobRecord | null> {
    const { rows } = await this.pool.query<Row>('SELECT * FROM stt_jobs WHERE id = $1 AND account_id = $2', [jobId, accountId]);
    return rows[0] ? jobFromRow(rows[0], await this.attempts(this.pool, jobId), 'parsed') : null;
  }

  async list(accountId: string, opts: ListOptions = {}): Promise<Page> {
    return listJobs(this.pool, accountId, opts);
  }

  /** Ends a job (the row must be locked by the caller) and its pg-boss job with it. */
  private async finish(
    q: Q,
    r: Row,
    status: 'completed' | 'failed' | 'canceled',
    fields: { result?: unknown; error?: JobError; creditsUsed?: number | null },
  ): Promise<void> {
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
    if (r.status === 'running') await this.boss.complete(q, r.boss_id, status);
    else await this.boss.cancel(q, r.boss_id);
  }

  /** Running jobs whose lease ran out: back to pg-boss's retry, or failed after the last attempt. */
  private async sweepExpired(): Promise<void> {
    await this.tx(async (q) => {
      const { rows } = await q.query<Row>(
        "SELECT * FROM stt_jobs WHERE status = 'running' AND lease_expires_at <= $1 ORDER BY lease_expires_at LIMIT 20 FOR UPDATE SKIP LOCKED",
        [this.now()],
      );
      for (const r of rows) {
        if (r.attempts >= this.maxAttempts) {
          await this.finish(q, r, 'failed', { error: ABANDONED(r.attempts) });
        } else {
          await q.query(
            "UPDATE stt_jobs SET status = 'queued', lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL WHERE id = $1",
            [r.id],
          );
          await this.boss.fail(q, r.boss_id, 'lease expired');
        }
      }
    });
  }

  async claim(workerId: string, leaseMs: number, opts: ClaimOptions = {}): Promise<Claimed | null> {
    await this.sweepExpired();
    const skip = new Set(opts.skipAccounts ?? []);
    let deferred = 0;
    for (let i = 0; i < 50; i++) {
      const out = await this.tx(async (q): Promise<Claimed | null | 'skip' | 'deferred'> => {
        const bj = await this.boss.fetch(q);
        if (!bj) return null;
        // Every other transaction locks the stt_jobs row before the pg-boss row; this one has the
        // pg-boss row already, so it must not wait for the stt_jobs row (a cancel holding it waits
        // for the pg-boss row: a deadlock, and the cancel answered 500). Busy: rolled back, fetched again.
        const { rows } = await q.query<Row>('SELECT * FROM stt_jobs WHERE id = $1 FOR UPDATE NOWAIT', [bj.jobId]);
        const r = rows[0];
        if (!r || r.status !== 'queued') {
          // Canceled in between (finish() cancels the pg-boss job, so this is a rare race), or pg-boss's
          // expiry backstop fired under a live lease: then the fetch re-armed the job for its worker.
          if (!r) await this.boss.cancel(q, bj.id);
          else if (r.status !== 'running') await this.boss.complete(q, bj.id, r.status);
          return 'skip';
        }
        if (skip.has(r.account_id)) {
          // pg-boss cannot fetch around an account, so a job of an account at its share of this
          // node's runners goes back, due again shortly, with its priority (its round) kept: the
          // next fetch reaches the other accounts' jobs (decision #36).
          await this.boss.complete(q, r.boss_id, 'deferred');
          const bossId = randomUUID();
          await this.boss.send(q, r.id, bossId, r.fair_seq, DEFER_MS);
          await q.query('UPDATE stt_jobs SET boss_id = $1 WHERE id = $2', [bossId, r.id]);
          return 'deferred';
        }
        const now = this.now();
        const lease: Lease = { jobId: r.id, token: newToken(), workerId, expiresAt: new Date(now.getTime() + leaseMs) };
        await q.query(
          "UPDATE stt_jobs SET status = 'running', attempts = attempts + 1, started_at = COALESCE(started_at, $1), lease_token = $2, lease_owner = $3, lease_expires_at = $4 WHERE id = $5",
          [now, lease.token, workerId, lease.expiresAt, r.id],
        );
        return { job: (await this.record(q, r.id))!, lease };
      }).catch(async (err: unknown) => {
        if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
        await new Promise((r) => setTimeout(r, 20));
        return 'skip' as const;
      });
      if (out === 'deferred') {
        // A bounded number per claim: an account alone with a long queue costs a few statements a poll.
        if (++deferred >= MAX_DEFERS_PER_CLAIM) return null;
      } else if (out !== 'skip') return out;
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
      const { rows } = await q.query<Row>("SELECT * FROM stt_jobs WHERE id = $1 AND status = 'running' AND lease_token = $2 FOR UPDATE", [
        lease.jobId,
        lease.token,
      ]);
      if (!rows[0]) return false;
      await fn(q, rows[0]);
      return true;
    });
  }

  async beginSettle(lease: Lease): Promise<boolean> {
    return this.withLease(lease, async (q, r) => {
      await q.query('UPDATE stt_jobs SET settling = true WHERE id = $1', [r.id]);
    });
  }

  async complete(lease: Lease, outcome: { result: unknown; creditsUsed: number }): Promise<boolean> {
    return this.withLease(lease, (q, r) => this.finish(q, r, 'completed', { result: outcome.result, creditsUsed: outcome.creditsUsed }));
  }

  async fail(lease: Lease, error: JobError, opts: { retry?: boolean; creditsUsed?: number } = {}): Promise<boolean> {
    return this.withLease(lease, async (q, r) => {
      if (opts.retry && r.attempts < this.maxAttempts) {
        await q.query(
          "UPDATE stt_jobs SET status = 'queued', lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL, error = $1 WHERE id = $2",
          [JSON.stringify(error), r.id],
        );
        await this.boss.fail(q, r.boss_id, error.code);
      } else {
        await this.finish(q, r, 'failed', { error, creditsUsed: opts.creditsUsed ?? null });
      }
    });
  }

  async release(lease: Lease, delayMs: number): Promise<boolean> {
    return this.withLease(lease, async (q, r) => {
      // pg-boss's retry would count and back off; a fresh pg-boss job that starts after the delay does neither.
      await this.boss.complete(q, r.boss_id, 'released');
      const bossId = randomUUID();
      await this.boss.send(q, r.id, bossId, r.fair_seq, delayMs);
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
      // A run that began to bill the job finishes it (decision #35): the job stays as it is.
      if (r && (r.status === 'queued' || r.status === 'running') && !r.settling) await this.finish(q, r, 'canceled', {});
    });
    return this.get(accountId, jobId);
  }

  async deleteResult(accountId: string, jobId: string): Promise<JobRecord | null> {
    await this.pool.query(
      "UPDATE stt_jobs SET result = NULL, result_deleted = true WHERE id = $1 AND account_id = $2 AND status IN ('completed', 'failed', 'canceled')",
      [jobId, accountId],
    );
    return this.get(accountId, jobId);
  }

  async purgeFinished(olderThan: Date): Promise<number> {
    // pg-boss deletes its own finished jobs after its retention; only our records are purged here.
    const res = await this.pool.query(
      "DELETE FROM stt_jobs WHERE status IN ('completed', 'failed', 'canceled') AND finished_at < $1 AND webhook_state <> 'pending'",
      [olderThan],
    );
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
    return this.tx((q) => claimDueWebhooks(q, this.now(), limit, leaseMs));
  }

  async deferWebhook(d: WebhookDelivery, at: Date): Promise<void> {
    await deferWebhookRow(this.pool, d, at);
  }

  async recordWebhookAttempt(d: WebhookDelivery, a: WebhookAttempt, nextAt: Date | null): Promise<void> {
    await this.tx((q) => recordWebhookRow(q, d, a, nextAt));
  }
}
