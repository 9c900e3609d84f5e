// Job webhooks: when a job with a callback_url completes or fails, POST
// {"event": "stt.job.completed" | "stt.job.failed", "job": {...}} to it, signed with the account's
// secret (webhook-signature.ts), through the SSRF-safe fetcher.
//
// Deliveries are durable: the queue records each due delivery with its next attempt time, and a
// dispatcher on any node claims due ones with a short lease, so a restart or a dead node loses no
// webhook and two nodes never send the same attempt. A non-2xx answer, a timeout (10 s) or a
// network error is retried on a backoff schedule (8 tries over about an hour by default); every
// attempt is recorded in the job's record. A URL the fetcher refuses is not retried: it would be
// refused again. Delivery is at least once: a receiver deduplicates on X-Parla-Webhook-Id.

import { jobJson } from './job-json.js';
import type { JobQueue, WebhookAttempt, WebhookDelivery } from './queue.js';
import { safeRequest, UrlNotAllowedError, type FetchPolicy } from '../net/safe-fetch.js';
import { signWebhook } from './webhook-signature.js';

/** Waits after attempt 1, 2, ... (ms): 8 tries over about 61 minutes. */
export const DEFAULT_SCHEDULE_MS: readonly number[] = [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000];
export const WEBHOOK_TIMEOUT_MS = 10_000;

export interface WebhookOptions {
  queue: JobQueue;
  /** The account's signing secret (Store.getWebhookSecret); null when the account is gone. */
  secretFor: (accountId: string) => Promise<string | null>;
  policy: FetchPolicy;
  /** Waits between attempts; its length + 1 is the number of tries. Injectable for tests. */
  scheduleMs?: readonly number[];
  timeoutMs?: number;
  /** Observes each attempt (metrics: webhook outcomes). */
  onAttempt?: (attempt: WebhookAttempt, delivery: WebhookDelivery) => void;
}

export function webhookEvent(status: string): 'stt.job.completed' | 'stt.job.failed' {
  return status === 'completed' ? 'stt.job.completed' : 'stt.job.failed';
}

/** The exact bytes sent: the same for every attempt of one delivery. */
export function webhookBody(d: WebhookDelivery): string {
  return JSON.stringify({ event: webhookEvent(d.job.status), job: jobJson(d.job, { webhook: false }) });
}

/** One POST; resolves with the attempt's outcome, never rejects. */
export async function sendWebhook(url: string, opts: { webhookId: string; attempt: number; secret: string; body: string; policy: FetchPolicy; timeoutMs: number }): Promise<WebhookAttempt & { refused: boolean }> {
  const at = new Date();
  const started = performance.now();
  const t = Math.floor(at.getTime() / 1000);
  const done = (status: number | null, error: string | null, refused = false) => ({
    attempt: opts.attempt,
    at,
    status,
    ok: status !== null && status >= 200 && status <= 299,
    error,
    durationMs: Math.round(performance.now() - started),
    refused,
  });
  try {
    const ex = await safeRequest(url, {
      policy: opts.policy,
      method: 'POST',
      limits: { connectTimeoutMs: opts.timeoutMs, idleTimeoutMs: opts.timeoutMs, totalTimeoutMs: opts.timeoutMs },
      followRedirects: false,
      headers: {
        'content-type': 'application/json',
        'x-parla-webhook-id': opts.webhookId,
        'x-parla-webhook-attempt': String(opts.attempt),
        'x-parla-signature': signWebhook(opts.secret, opts.body, t),
      },
      body: opts.body,
    });
    const status = ex.res.statusCode ?? 0;
    ex.finish(); // the answer's body is not needed
    return done(status, status >= 200 && status <= 299 ? null : `HTTP ${status}`);
  } catch (err) {
    return done(null, err instanceof Error ? err.message : String(err), err instanceof UrlNotAllowedError);
  }
}

export class WebhookDispatcher {
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly o: WebhookOptions) {
    this.schedule = o.scheduleMs ?? DEFAULT_SCHEDULE_MS;
    this.timeoutMs = o.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  }

  /** Sends every due delivery (up to `limit`) once; returns how many were attempted. */
  async deliverDue(limit = 10): Promise<number> {
    // Lease a little longer than one attempt can take, so a live dispatcher never loses its delivery.
    const due = await this.o.queue.claimWebhooks(limit, this.timeoutMs + 5_000);
    await Promise.all(due.map((d) => this.deliver(d)));
    return due.length;
  }

  private async deliver(d: WebhookDelivery): Promise<void> {
    const url = d.job.callbackUrl;
    const secret = await this.o.secretFor(d.job.accountId);
    let attempt: WebhookAttempt & { refused: boolean };
    if (url === null || secret === null) {
      attempt = { attempt: d.attempt, at: new Date(), status: null, ok: false, error: url === null ? 'no callback URL' : 'the account has no webhook secret', durationMs: 0, refused: true };
    } else {
      attempt = await sendWebhook(url, { webhookId: d.webhookId, attempt: d.attempt, secret, body: webhookBody(d), policy: this.o.policy, timeoutMs: this.timeoutMs });
    }
    const wait = this.schedule[d.attempt - 1];
    const nextAt = attempt.ok || attempt.refused || wait === undefined ? null : new Date(attempt.at.getTime() + attempt.durationMs + wait);
    const { refused: _refused, ...record } = attempt;
    await this.o.queue.recordWebhookAttempt(d, record, nextAt);
    this.o.onAttempt?.(record, d);
  }

  /** Polls for due deliveries every intervalMs until stop(). */
  start(intervalMs = 1000): void {
    if (this.timer) return;
    const tick = () => {
      this.running = this.deliverDue().catch(() => 0);
      void this.running.finally(() => {
        this.running = null;
        if (this.timer) this.timer = setTimeout(tick, intervalMs);
      });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
