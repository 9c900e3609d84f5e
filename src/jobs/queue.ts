// The job queue port for long audio (docs/jobs.md): job records the API shows, a claim with a
// lease for workers, and durable webhook deliveries. Two implementations behind it: SqliteJobQueue
// (embedded, one node) and PgBossJobQueue (PostgreSQL with pg-boss, many nodes);
// test/jobs/queue-contract.ts runs the same suite against both.
//
// Leases: a claim hands the worker a lease (a fresh token and an expiry). The worker renews it with
// heartbeat(); when a node dies its lease runs out and the next claim, on any node or on the same
// node after a restart, takes the job over with a new token. Every write a worker makes names its
// token, so a worker whose lease was taken over (or whose job was canceled) learns it at its next
// heartbeat and can never complete or fail the job: a job ends exactly once.

import { createHash, randomBytes } from 'node:crypto';
import type { KeyMode } from '../domain/accounts.js';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'canceled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'completed', 'failed', 'canceled'];
export const FINISHED: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'canceled']);

/** Where the job's audio comes from: a file the edge already stored, or a URL the runner fetches. */
export type JobSource = { type: 'upload'; path: string; bytes: number; filename: string | null } | { type: 'url'; url: string };

/** The API's error object, as a failed job shows it. */
export interface JobError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export type WebhookState = 'none' | 'pending' | 'delivered' | 'failed';

export interface WebhookAttempt {
  /** 1-based. */
  attempt: number;
  at: Date;
  /** The receiver's HTTP status, or null when no answer came (timeout, refused address, network). */
  status: number | null;
  ok: boolean;
  error: string | null;
  durationMs: number;
}

export interface NewJob {
  accountId: string;
  keyId: string;
  mode: KeyMode;
  /** The validated batch fields (model, language, response_format, ...), as the runner needs them. */
  params: Record<string, unknown>;
  source: JobSource;
  callbackUrl: string | null;
  /** From the Idempotency-Key header; scoped to the account. */
  idempotencyKey: string | null;
  /** bodyHash() of the request; required with idempotencyKey. */
  bodyHash: string | null;
  /** Keep no result at all (the webhook carries it once). */
  zeroRetention?: boolean;
}

export interface JobRecord {
  id: string;
  accountId: string;
  keyId: string;
  mode: KeyMode;
  status: JobStatus;
  /** 0-1 while running, 1 when completed, null before the first report. */
  progress: number | null;
  params: Record<string, unknown>;
  source: JobSource;
  callbackUrl: string | null;
  zeroRetention: boolean;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Runs started: 1 for a job that ran once, more when a dead worker's job was taken over. */
  attempts: number;
  creditsUsed: number | null;
  /** The transcription result; null until completed, after deleteResult, or with zero retention. */
  result: unknown;
  resultDeleted: boolean;
  error: JobError | null;
  webhook: { id: string | null; state: WebhookState; attempts: WebhookAttempt[] };
}

export interface Lease {
  jobId: string;
  token: string;
  workerId: string;
  expiresAt: Date;
}

export interface Claimed {
  job: JobRecord;
  lease: Lease;
}

export interface ClaimOptions {
  /** Accounts whose queued jobs are not claimed now (they hold their share of this node's runners). */
  skipAccounts?: readonly string[];
}

export interface ListOptions {
  limit?: number;
  cursor?: string | null;
  status?: JobStatus;
  /** Only jobs made with keys of this mode (the API keeps test and live apart); both when absent. */
  mode?: KeyMode;
}

export interface Page {
  jobs: JobRecord[];
  /** Pass back to list() for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** A due webhook delivery handed to one dispatcher at a time (its own short lease). */
export interface WebhookDelivery {
  job: JobRecord;
  webhookId: string;
  /** The number this attempt will have (1-based). */
  attempt: number;
  token: string;
}

export interface QueueDepth {
  queued: number;
  running: number;
  webhooksPending: number;
}

/** Same Idempotency-Key, different body: the edge answers 409 IDEMPOTENCY_KEY_REUSED. */
export class IdempotencyConflictError extends Error {
  constructor(readonly jobId: string) {
    super('the Idempotency-Key was already used with a different request body');
    this.name = 'IdempotencyConflictError';
  }
}

export interface QueueOptions {
  /** Claims of one job before it fails for good (a job that keeps killing its worker must stop). */
  maxAttempts?: number;
  /**
   * A job failed with `retry: true` waits this long before it may run again, doubling with each
   * attempt (default 10 s). A job taken over from a dead worker is not delayed on SQLite; on
   * PostgreSQL pg-boss applies the same delay to it.
   */
  retryDelayMs?: number;
  /** How long an idempotency key replays its job. */
  idempotencyMs?: number;
  /** Clock, injectable so tests can step over leases and retention without sleeping. */
  now?: () => Date;
}

export const DEFAULT_MAX_ATTEMPTS = 3;
export const IDEMPOTENCY_MS = 24 * 3600_000;
export const DEFAULT_RETRY_DELAY_MS = 10_000;

export interface JobQueue {
  readonly kind: 'sqlite' | 'postgres';
  /** Creates or upgrades the queue's tables. Idempotent; two nodes may call it at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;

  /**
   * Records a queued job. With an idempotency key seen within 24 h for the account: the same body
   * hash returns that job (`created: false`); another hash throws IdempotencyConflictError.
   */
  enqueue(job: NewJob): Promise<{ job: JobRecord; created: boolean }>;

  /** The job if it belongs to the account; another account's id is null, like an unknown one. */
  get(accountId: string, jobId: string): Promise<JobRecord | null>;
  /** Newest first. `cursor` comes from the previous page. */
  list(accountId: string, opts?: ListOptions): Promise<Page>;

  /**
   * The next queued job in fair order (round-robin by account: see `fair_seq` in fairSeq()), or a
   * running one whose lease ran out, with a fresh lease; null if none. Jobs of `skipAccounts` (the
   * accounts at their share of this node's runners) are left for later.
   */
  claim(workerId: string, leaseMs: number, opts?: ClaimOptions): Promise<Claimed | null>;
  /** Renews the lease and optionally records progress (0-1). False: the lease is lost, stop. */
  heartbeat(lease: Lease, leaseMs: number, progress?: number): Promise<boolean>;
  /**
   * The run is about to bill the job (its recognition ended): from now on cancel() leaves the job
   * running, so a job is either canceled and unbilled or billed and completed, never both
   * (decision #35). False when the lease is lost (canceled, taken over): the run must not bill.
   * The mark stays for the job's later runs (a settle that failed may have written its ledger row).
   */
  beginSettle(lease: Lease): Promise<boolean>;
  /** Ends the job as completed. True exactly once per job; false when the lease is lost. */
  complete(lease: Lease, outcome: { result: unknown; creditsUsed: number }): Promise<boolean>;
  /** Ends the job as failed (or, with retry and attempts left, queues it again). False when the lease is lost. */
  fail(lease: Lease, error: JobError, opts?: { retry?: boolean; creditsUsed?: number }): Promise<boolean>;
  /**
   * Hands a claimed job back, queued again after delayMs, as if it had not been claimed: the
   * claim is not counted as a run (an account at its concurrency limit waits queued). False when
   * the lease is lost.
   */
  release(lease: Lease, delayMs: number): Promise<boolean>;
  /**
   * Cancels a queued or running job of the account, unless a run has begun to bill it
   * (beginSettle). The record after the call; null when not found.
   */
  cancel(accountId: string, jobId: string): Promise<JobRecord | null>;
  /** Deletes a finished job's stored result (the record stays). Null when not found. */
  deleteResult(accountId: string, jobId: string): Promise<JobRecord | null>;

  /** Finished jobs older than `olderThan` (and their webhook attempts) are deleted; returns how many. */
  purgeFinished(olderThan: Date): Promise<number>;
  depth(): Promise<QueueDepth>;

  /** Up to `limit` webhook deliveries due now, each leased to this caller for leaseMs. */
  claimWebhooks(limit: number, leaseMs: number): Promise<WebhookDelivery[]>;
  /** Records one attempt; `nextAt` schedules another, null ends the delivery (delivered or given up). */
  recordWebhookAttempt(delivery: WebhookDelivery, attempt: WebhookAttempt, nextAt: Date | null): Promise<void>;
  /**
   * Hands a claimed delivery back unattempted, due again at `at` (its destination or account has
   * as many deliveries in flight as it may: src/jobs/webhooks.ts). Nothing is recorded.
   */
  deferWebhook(delivery: WebhookDelivery, at: Date): Promise<void>;
}

/** SHA-256 of the request body's canonical bytes: what an idempotency key is bound to. */
export function bodyHash(parts: Array<string | Buffer>): string {
  const h = createHash('sha256');
  for (const p of parts) {
    const b = typeof p === 'string' ? Buffer.from(p) : p;
    // Length-prefixed, so ["ab", "c"] and ["a", "bc"] differ.
    h.update(`${b.length}:`);
    h.update(b);
  }
  return h.digest('hex');
}

/**
 * What the edge accepts in Idempotency-Key: 1-255 visible ASCII characters (as Stripe does), so
 * a key fits an index and never carries control bytes into the database.
 */
export function validIdempotencyKey(key: string): boolean {
  if (key.length < 1 || key.length > 255) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

export function newJobId(): string {
  return `job_${base62(20)}`;
}

export function newToken(): string {
  return randomBytes(16).toString('hex');
}

function base62(n: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  while (out.length < n) for (const b of randomBytes(32)) if (b < 248 && out.length < n) out += alphabet[b % 62];
  return out;
}

/**
 * Cursors are opaque to clients: the created_at (ms) and id of the last job of the page, so a
 * page boundary is stable while new jobs arrive.
 */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.getTime()}:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: number; id: string } | null {
  if (cursor.length > 200) return null;
  const raw = Buffer.from(cursor, 'base64url').toString();
  const colon = raw.indexOf(':');
  if (colon <= 0) return null;
  const createdAt = Number(raw.slice(0, colon));
  const id = raw.slice(colon + 1);
  if (!Number.isSafeInteger(createdAt) || !/^job_[A-Za-z0-9]{20}$/.test(id)) return null;
  return { createdAt, id };
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return 20;
  return Math.max(1, Math.min(100, Math.floor(limit)));
}

/**
 * A new job's place in the fair order (round-robin by account, start-time fair queueing): the
 * queue claims by ascending `fair_seq`, then age. An account's next job comes one round after its
 * last open (queued or running) one, and never before the round being served now (the lowest
 * `fair_seq` still queued): a newcomer joins the current round, so an account with a thousand jobs
 * queued takes one turn per round like everyone else.
 */
export function fairSeq(accountLast: number | null, head: number | null): number {
  const round = head ?? 0;
  return accountLast === null ? round : Math.max(accountLast + 1, round);
}

export function clampProgress(p: number): number {
  return Number.isFinite(p) ? Math.max(0, Math.min(1, p)) : 0;
}
