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
  /** A run began to bill the job (JobQueue.beginSettle): cancel() leaves it running. */
  settling: number | boolean;
  /** The job's round in the fair order across accounts (fairSeq()). */
  fair_seq: number;
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

/**
 * SQLite keeps JSON as TEXT (parsed here); PostgreSQL's driver hands JSONB over parsed already, and
 * parsing again would break a result that is a JSON string (the text, srt and vtt formats).
 */
export type JsonColumns = 'text' | 'parsed';

function json(v: unknown, kind: JsonColumns): unknown {
  return kind === 'text' && typeof v === 'string' ? JSON.parse(v) : v;
}

export function attemptFromRow(r: AttemptRow): WebhookAttempt {
  return {
    attempt: Number(r.attempt),
    at: toDate(r.at),
    status: r.status === null ? null : Number(r.status),
    ok: !!r.ok,
    error: r.error,
    durationMs: Number(r.duration_ms),
  };
}

export function jobFromRow(r: JobRow, attempts: WebhookAttempt[], kind: JsonColumns): JobRecord {
  const zeroRetention = !!r.zero_retention;
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    mode: r.mode as KeyMode,
    status: r.status as JobStatus,
    progress: r.progress === null ? null : Number(r.progress),
    params: json(r.params, kind) as Record<string, unknown>,
    source: json(r.source, kind) as JobSource,
    callbackUrl: r.callback_url,
    zeroRetention,
    createdAt: toDate(r.created_at),
    startedAt: toDateOrNull(r.started_at),
    finishedAt: toDateOrNull(r.finished_at),
    attempts: Number(r.attempts),
    creditsUsed: r.credits_used === null ? null : Number(r.credits_used),
    // A zero-retention result is held only for its webhook and never shown.
    result: zeroRetention || r.result === null ? null : json(r.result, kind),
    resultDeleted: !!r.result_deleted,
    error: r.error === null ? null : (json(r.error, kind) as JobError),
    webhook: { id: r.webhook_id, state: r.webhook_state as WebhookState, attempts },
  };
}

/** The job as the webhook payload carries it: like the record, plus the result even under zero retention. */
export function jobWithHeldResult(r: JobRow, attempts: WebhookAttempt[], kind: JsonColumns): JobRecord {
  const job = jobFromRow(r, attempts, kind);
  return r.result === null ? job : { ...job, result: json(r.result, kind) };
}

export const ABANDONED = (attempts: number): JobError => ({
  code: 'INTERNAL_ERROR',
  message: `The job's worker stopped ${attempts} times before finishing it; the job was given up.`,
});
