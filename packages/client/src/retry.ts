// The interface's retry rules, as a pure schedule so tests can check it with a fake clock and
// random source:
//   400, 401, 402, 403 (and every other 4xx but 429): never retried.
//   429: retried after Retry-After seconds (exponential backoff when the header is missing).
//   500 (and other 5xx but 503): exponential backoff 1 s, 2 s, 4 s, plus random jitter in [0, 1) s.
//   503: waits with the same backoff, and at least Retry-After when the server sent it.
//   Network failures and timeouts: the same backoff as 500.
// Every Parla endpoint is safe to repeat (see README: idempotency), so all of them retry; job
// creation is made so by the Idempotency-Key jobs.create always sends (docs/jobs.md).

export interface RetryOptions {
  /** Retries after the first attempt (default 3: waits of 1, 2 and 4 s plus jitter). */
  maxRetries?: number;
  /** Base delay in ms (default 1000). */
  baseDelayMs?: number;
  /** Upper bound for one wait, in ms (default 60 s). */
  maxDelayMs?: number;
}

export interface RetryEnvironment {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1). */
  random(): number;
}

export const defaultRetryEnvironment: RetryEnvironment = {
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  random: Math.random,
};

/** What happened on one attempt. */
export type AttemptOutcome = { kind: 'status'; status: number; retryAfter: number | null } | { kind: 'network' };

/**
 * The wait before retry number `retry` (0-based) after `outcome`, in ms; null when the outcome must
 * not be retried or the retries are used up.
 */
export function retryDelay(outcome: AttemptOutcome, retry: number, opts: RetryOptions, random: () => number): number | null {
  const maxRetries = opts.maxRetries ?? 3;
  if (retry >= maxRetries) return null;
  const base = opts.baseDelayMs ?? 1000;
  const cap = opts.maxDelayMs ?? 60_000;
  const backoff = () => Math.min(cap, base * 2 ** retry + random() * 1000);
  if (outcome.kind === 'network') return backoff();
  const { status, retryAfter } = outcome;
  if (status === 429) return retryAfter !== null ? Math.min(cap, retryAfter * 1000) : backoff();
  if (status === 503) return Math.min(cap, Math.max(backoff(), (retryAfter ?? 0) * 1000));
  if (status >= 500) return backoff();
  return null;
}
