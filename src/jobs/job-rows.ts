// Row <-> JobRecord mapping shared by both queues (SQLite hands back ms numbers and JSON text,
// PostgreSQL Date objects and parsed JSONB).

import type { KeyMode } from '../domain/accounts.js';
import { toDate, toDateOrNull, type Stamp } from '../storage/rows.js';
import type { JobError, JobRecord, JobSource, JobStatus, WebhookAttempt, WebhookState } from './queue.js';

export interface JobRow {
  id: string;
  account_id: string;
  key_id: string;
  mode: string;
  status: string;
  progress: number | null;
  params: unknown;
  source: unknown;
  callback_url: string | null;
  zero_retention: number | boolean;
  created_at: Stamp;
  started_at: Stamp | null;
  finished_at: Stamp | null;
  attempts: number;
  credits_used: number | string | null;
  result: unknown;
  result_deleted: number | boolean;
  error: unknown;
  webhook_id: string | null;
  webhook_state: string;
  webhook_attempt_count: number;
}

export interface AttemptRow {
  job_id: string;
  attempt: number;
  at: Stamp;
  status: number | null;
  ok: number | boolean;
  error: string | null;
  duration_ms: number;
}

function json(v: unknown): unknown {
  return typeof v === 'string' ? JSON.parse(v) : v;
}

export function attemptFromRow(r: AttemptRow): WebhookAttempt {
  return { attempt: Number(r.attempt), at: toDate(r.at), status: r.status === null ? null : Number(r.status), ok: !!r.ok, error: r.error, durationMs: Number(r.duration_ms) };
}

export function jobFromRow(r: JobRow, attempts: WebhookAttempt[]): JobRecord {
  const zeroRetention = !!r.zero_retention;
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    mode: r.mode as KeyMode,
    status: r.status as JobStatus,
    progress: r.progress === null ? null : Number(r.progress),
    params: json(r.params) as Record<string, unknown>,
    source: json(r.source) as JobSource,
    callbackUrl: r.callback_url,
    zeroRetention,
    createdAt: toDate(r.created_at),
    startedAt: toDateOrNull(r.started_at),
    finishedAt: toDateOrNull(r.finished_at),
    attempts: Number(r.attempts),
    creditsUsed: r.credits_used === null ? null : Number(r.credits_used),
    // A zero-retention result is held only for its webhook and never shown.
    result: zeroRetention || r.result === null ? null : json(r.result),
    resultDeleted: !!r.result_deleted,
    error: r.error === null ? null : (json(r.error) as JobError),
    webhook: { id: r.webhook_id, state: r.webhook_state as WebhookState, attempts },
  };
}

/** The job as the webhook payload carries it: like the record, plus the result even under zero retention. */
export function jobWithHeldResult(r: JobRow, attempts: WebhookAttempt[]): JobRecord {
  const job = jobFromRow(r, attempts);
  return r.result === null ? job : { ...job, result: json(r.result) };
}

export const ABANDONED = (attempts: number): JobError => ({
  code: 'INTERNAL_ERROR',
  message: `The job's worker stopped ${attempts} times before finishing it; the job was given up.`,
});
