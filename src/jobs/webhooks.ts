// Job webhooks: when a job with a callback_url completes or fails, POST
// {"event": "stt.job.completed" | "stt.job.failed", "job": {...}} to it, signed with the account's
// secret (webhook-signature.ts), through the SSRF-safe fetcher. A job of a compatible door's
// dialect (src/jobs/dialect.ts: Deepgram's callback) sends that dialect's body, method and headers
// instead, with the same signature headers.
//
// Deliveries are durable: the queue records each due delivery with its next attempt time, and a
// dispatcher on any node claims due ones with a short lease, so a restart or a dead node loses no
// webhook and two nodes never send the same attempt. A non-2xx answer, a timeout (10 s) or a
// network error is retried on a backoff schedule (8 tries over about an hour by default); every
// attempt is recorded in the job's record. A URL the fetcher refuses is not retried: it would be
// refused again. Delivery is at least once: a receiver deduplicates on X-Parla-Webhook-Id.
//
// One slow receiver delays only its own deliveries (issue 30, decision #36): deliveries are not
// sent in batches awaited together but each on its own, with caps on those in flight per account
// and destination (scheme, host and port), per destination, per account and in all. A due
// delivery at a cap is handed back unattempted (JobQueue.deferWebhook), due again a moment later,
// so the claim reaches the deliveries behind it. The tightest cap is one account's to one
// destination: accounts often share a receiving host (a webhook platform), and one account's slow
// endpoint there must not take the host's places from the others (decision #101).

import { jobJson } from './job-json.js';
import type { JobQueue, WebhookAttempt, WebhookDelivery } from './queue.js';
import { safeRequest, UrlNotAllowedError, type FetchPolicy } from '../net/safe-fetch.js';
import { signWebhook } from './webhook-signature.js';
import { dialectOf, type CallbackRequest, type JobDialects } from './dialect.js';

/** Waits after attempt 1, 2, ... (ms): 8 tries over about 61 minutes. */
export const DEFAULT_SCHEDULE_MS: readonly number[] = [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000];
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Deliveries in flight on one node: in all, to one destination, for one account, for one account to one destination. */
export const WEBHOOK_CONCURRENCY = { total: 32, perDestination: 16, perAccount: 8, perAccountDestination: 4 };
/** A delivery passed over for a busy destination or account is due again after this. */
const DEFER_MS = 1000;
/** Deliveries claimed at once, and claims per poll (the rest wait for the next poll). */
const CLAIM_BATCH = 50;
const CLAIMS_PER_POLL = 4;

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
  /** Caps on deliveries in flight (default WEBHOOK_CONCURRENCY). */
  concurrency?: Partial<typeof WEBHOOK_CONCURRENCY>;
  /** The compatible doors' job dialects: a job of one gets that vendor's callback (src/jobs/dialect.ts). */
  dialects?: JobDialects;
}

/** What one receiver is, for its cap: scheme, host and port (the same server whatever the path). */
export function webhookDestination(url: string | null): string {
  try {
    const u = new URL(url ?? '');
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    return 'invalid';
  }
}

export function webhookEvent(status: string): 'stt.job.completed' | 'stt.job.failed' {
  return status === 'completed' ? 'stt.job.completed' : 'stt.job.failed';
}

/** The exact bytes sent: the same for every attempt of one delivery. */
export function webhookBody(d: WebhookDelivery): string {
  return JSON.stringify({ event: webhookEvent(d.job.status), job: jobJson(d.job, { webhook: false }) });
}

/** One POST; resolves with the attempt's outcome, never rejects. */
export async function sendWebhook(
  url: string,
  opts: {
    webhookId: string;
    attempt: number;
    secret: string;
    body: string;
    policy: FetchPolicy;
    timeoutMs: number;
    method?: CallbackRequest['method'];
    headers?: Record<string, string>;
  },
): Promise<WebhookAttempt & { refused: boolean }> {
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
      method: opts.method ?? 'POST',
      limits: { connectTimeoutMs: opts.timeoutMs, idleTimeoutMs: opts.timeoutMs, totalTimeoutMs: opts.timeoutMs },
      followRedirects: false,
      headers: {
        ...opts.headers,
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
  private readonly caps: typeof WEBHOOK_CONCURRENCY;
  private timer: NodeJS.Timeout | null = null;
  private tick: (() => void) | null = null;
  private woken = false;
  private running: Promise<unknown> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perDestination = new Map<string, number>();
  private readonly perAccount = new Map<string, number>();
  private readonly perAccountDestination = new Map<string, number>();

  constructor(private readonly o: WebhookOptions) {
    this.schedule = o.scheduleMs ?? DEFAULT_SCHEDULE_MS;
    this.timeoutMs = o.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.caps = { ...WEBHOOK_CONCURRENCY, ...o.concurrency };
  }

  /** Sends the due deliveries there is room for and waits for them; returns how many were attempted. */
  async deliverDue(): Promise<number> {
    const started = await this.startDue();
    await Promise.all(started);
    return started.length;
  }

  /**
   * Claims due deliveries and starts those there is room for, without waiting for them: each
   * ends on its own. The others go back to the queue unattempted, due again shortly.
   */
  private async startDue(): Promise<Array<Promise<void>>> {
    const started: Array<Promise<void>> = [];
    for (let round = 0; round < CLAIMS_PER_POLL && this.inFlight.size < this.caps.total; round++) {
      // Lease a little longer than one attempt can take, so a live dispatcher never loses its delivery.
      const due = await this.o.queue.claimWebhooks(CLAIM_BATCH, this.timeoutMs + 5_000);
      for (const d of due) {
        const destination = webhookDestination(d.job.callbackUrl);
        const account = d.job.accountId;
        const pair = `${account} ${destination}`;
        if (
          this.inFlight.size >= this.caps.total ||
          (this.perDestination.get(destination) ?? 0) >= this.caps.perDestination ||
          (this.perAccount.get(account) ?? 0) >= this.caps.perAccount ||
          (this.perAccountDestination.get(pair) ?? 0) >= this.caps.perAccountDestination
        ) {
          await this.o.queue.deferWebhook(d, new Date(Date.now() + DEFER_MS)).catch(() => undefined);
          continue;
        }
        bump(this.perDestination, destination, 1);
        bump(this.perAccount, account, 1);
        bump(this.perAccountDestination, pair, 1);
        const sending: Promise<void> = this.deliver(d)
          .catch(() => undefined) // (the lease runs out and the delivery is due again)
          .finally(() => {
            bump(this.perDestination, destination, -1);
            bump(this.perAccount, account, -1);
            bump(this.perAccountDestination, pair, -1);
            this.inFlight.delete(sending);
          });
        this.inFlight.add(sending);
        started.push(sending);
      }
      if (due.length < CLAIM_BATCH) break;
    }
    return started;
  }

  private async deliver(d: WebhookDelivery): Promise<void> {
    const url = d.job.callbackUrl;
    const secret = await this.o.secretFor(d.job.accountId);
    const request =
      url === null || secret === null ? (url === null ? 'no callback URL' : 'the account has no webhook secret') : this.request(d);
    const attempt =
      typeof request === 'string'
        ? { attempt: d.attempt, at: new Date(), status: null, ok: false, error: request, durationMs: 0, refused: true }
        : await sendWebhook(url!, {
            webhookId: d.webhookId,
            attempt: d.attempt,
            secret: secret!,
            ...request,
            policy: this.o.policy,
            timeoutMs: this.timeoutMs,
          });
    const wait = this.schedule[d.attempt - 1];
    const nextAt = attempt.ok || attempt.refused || wait === undefined ? null : new Date(attempt.at.getTime() + attempt.durationMs + wait);
    const { refused: _refused, ...record } = attempt;
    await this.o.queue.recordWebhookAttempt(d, record, nextAt);
    this.o.onAttempt?.(record, d);
  }

  /** Parla's envelope, or the job's dialect's own callback; a string says why none can be sent. */
  private request(d: WebhookDelivery): CallbackRequest | string {
    try {
      const dialect = dialectOf(d.job, this.o.dialects);
      return dialect ? dialect.callback(d.job) : { method: 'POST', body: webhookBody(d), headers: {} };
    } catch (err) {
      return (err as Error).message;
    }
  }

  /** Polls for due deliveries every intervalMs until stop(); a slow delivery never holds up a poll. */
  start(intervalMs = 1000): void {
    if (this.timer) return;
    const tick = () => {
      this.running = this.startDue().catch(() => []);
      void this.running.finally(() => {
        this.running = null;
        if (!this.timer) return;
        // A wake during the claim: look again at once, for the delivery it announced.
        const again = this.woken;
        this.woken = false;
        this.timer = setTimeout(tick, again ? 0 : intervalMs);
      });
    };
    this.tick = tick;
    this.timer = setTimeout(tick, intervalMs);
  }

  /**
   * A job on this node just finished: its delivery is due now, so look now rather than at the next
   * poll (up to a second later). Deliveries of jobs finished on other nodes wait for the poll.
   */
  wake(): void {
    if (!this.timer || !this.tick) return;
    if (this.running) {
      this.woken = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(this.tick, 0);
  }

  /** Stops polling and waits for the deliveries in flight (each ends within its timeout). */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await Promise.all([...this.inFlight]);
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
