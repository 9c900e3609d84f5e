// Row work of the PostgreSQL job queue (pgboss-queue.ts) that pg-boss has no part in: the
// idempotency key's earlier job, an account's job list, and the webhook deliveries on the stt_jobs
// rows (claimed with a short lease, handed back unattempted, recorded attempt by attempt).

import type pg from 'pg';
import { attemptFromRow, jobFromRow, jobWithHeldResult, type AttemptRow, type JobRow } from './job-rows.js';
import {
  clampLimit,
  decodeCursor,
  encodeCursor,
  IdempotencyConflictError,
  newToken,
  type JobRecord,
  type ListOptions,
  type NewJob,
  type Page,
  type WebhookAttempt,
  type WebhookDelivery,
} from './queue.js';

type Q = Pick<pg.PoolClient, 'query'>;

export async function webhookAttempts(q: Q, id: string): Promise<WebhookAttempt[]> {
  return (await q.query<AttemptRow>('SELECT * FROM stt_job_webhook_attempts WHERE job_id = $1 ORDER BY attempt', [id])).rows.map(
    attemptFromRow,
  );
}

/**
 * The job an earlier request with this idempotency key made within `windowMs`, or null (a key
 * older than that is cleared for reuse); IdempotencyConflictError when the bodies differ. Holds an
 * advisory lock to the end of the transaction: concurrent requests with one key wait for each
 * other, then see the first one's job.
 */
export async function idempotentPrior(q: Q, job: NewJob, now: Date, windowMs: number): Promise<string | null> {
  if (job.idempotencyKey === null) return null;
  // Account ids never hold a '/', so account + '/' + key is unambiguous.
  await q.query("SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))", [job.accountId, job.idempotencyKey]);
  const { rows } = await q.query<{ id: string; body_hash: string; created_at: Date }>(
    'SELECT id, body_hash, created_at FROM stt_jobs WHERE account_id = $1 AND idempotency_key = $2',
    [job.accountId, job.idempotencyKey],
  );
  const prior = rows[0];
  if (prior && prior.created_at.getTime() > now.getTime() - windowMs) {
    if (prior.body_hash !== job.bodyHash) throw new IdempotencyConflictError(prior.id);
    return prior.id;
  }
  if (prior) await q.query('UPDATE stt_jobs SET idempotency_key = NULL WHERE id = $1', [prior.id]);
  return null;
}

/** The account's jobs, newest first, one page (JobQueue.list). */
export async function listJobs(q: Q, accountId: string, opts: ListOptions): Promise<Page> {
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
  if (opts.mode) {
    args.push(opts.mode);
    where.push(`mode = $${args.length}`);
  }
  args.push(limit + 1);
  const { rows } = await q.query<JobRow>(
    `SELECT * FROM stt_jobs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${args.length}`,
    args,
  );
  const page: JobRecord[] = [];
  for (const r of rows.slice(0, limit)) page.push(jobFromRow(r, await webhookAttempts(q, r.id), 'parsed'));
  const last = page[page.length - 1];
  return { jobs: page, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
}

/** Up to `limit` due deliveries, leased for leaseMs (run inside the caller's transaction). */
export async function claimDueWebhooks(q: Q, now: Date, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
  const { rows } = await q.query<JobRow & { webhook_id: string | null }>(
    "SELECT * FROM stt_jobs WHERE webhook_state = 'pending' AND webhook_next_at <= $1 ORDER BY webhook_next_at LIMIT $2 FOR UPDATE SKIP LOCKED",
    [now, limit],
  );
  const out: WebhookDelivery[] = [];
  for (const r of rows) {
    const token = newToken();
    // The lease is the next-attempt time moved ahead: a dispatcher that dies mid-POST leaves
    // the delivery due again after leaseMs, for any node to pick up.
    await q.query('UPDATE stt_jobs SET webhook_next_at = $1, webhook_token = $2 WHERE id = $3', [
      new Date(now.getTime() + leaseMs),
      token,
      r.id,
    ]);
    out.push({
      job: jobWithHeldResult(r, await webhookAttempts(q, r.id), 'parsed'),
      webhookId: r.webhook_id!,
      attempt: Number(r.webhook_attempt_count) + 1,
      token,
    });
  }
  return out;
}

/** A claimed delivery back to the queue unattempted, due at `at` (only while the claim is still its). */
export async function deferWebhookRow(q: Q, d: WebhookDelivery, at: Date): Promise<void> {
  await q.query(
    "UPDATE stt_jobs SET webhook_next_at = $1, webhook_token = NULL WHERE id = $2 AND webhook_state = 'pending' AND webhook_token = $3",
    [at, d.job.id, d.token],
  );
}

/** Records one attempt (run inside the caller's transaction). */
export async function recordWebhookRow(q: Q, d: WebhookDelivery, a: WebhookAttempt, nextAt: Date | null): Promise<void> {
  // A stale dispatcher (its lease ran out and another took the delivery) records nothing.
  const { rows } = await q.query<{ zero_retention: boolean }>(
    "SELECT zero_retention FROM stt_jobs WHERE id = $1 AND webhook_state = 'pending' AND webhook_token = $2 FOR UPDATE",
    [d.job.id, d.token],
  );
  if (!rows[0]) return;
  await q.query(
    'INSERT INTO stt_job_webhook_attempts (job_id, attempt, at, status, ok, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING',
    [d.job.id, a.attempt, a.at, a.status, a.ok, a.error, Math.round(a.durationMs)],
  );
  const state = nextAt ? 'pending' : a.ok ? 'delivered' : 'failed';
  await q.query(
    `UPDATE stt_jobs SET webhook_attempt_count = webhook_attempt_count + 1, webhook_state = $1, webhook_next_at = $2, webhook_token = NULL${!nextAt && rows[0].zero_retention ? ', result = NULL' : ''} WHERE id = $3`,
    [state, nextAt, d.job.id],
  );
}
