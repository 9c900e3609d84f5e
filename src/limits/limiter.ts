// The limits port: request-rate windows and concurrency slots per account.
// MemoryLimiter (one node, default) and RedisLimiter (REDIS_URL: shared by every node) implement
// it; test/limits/limiter-contract.ts runs the same suite against both.

export interface RateWindow {
  /** Window length in seconds (60 for per-minute, 3600 for per-hour). */
  windowSeconds: number;
  limit: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The most constraining window: the refusing one, else the one with the fewest remaining requests. */
  windowSeconds: number;
  limit: number;
  remaining: number;
  /** Seconds until that window resets. */
  resetSeconds: number;
  /** Seconds to wait before retrying when not allowed. */
  retryAfter: number;
  /** Every window's state (refused or not), for the IETF RateLimit / RateLimit-Policy fields. */
  windows: Array<{ windowSeconds: number; limit: number; remaining: number; resetSeconds: number }>;
}

export type SlotDecision = { ok: true; slotId: string; inUse: number } | { ok: false; inUse: number; retryAfter: number };

/** The windows' decision, and the slot taken when they allowed the request (null when they refused it). */
export interface Admission {
  rate: RateDecision;
  slot: SlotDecision | null;
}

export interface ImmediateLimits {
  admit(accountId: string, windows: RateWindow[], maxSlots: number, leaseMs: number): Admission;
  releaseSlot(accountId: string, slotId: string): void;
}

export interface Limiter {
  readonly kind: 'memory' | 'redis';
  /**
   * Counts one request against every window of the account. A refused request is not counted in
   * any window (it may be visible for the instant between counting and giving its point back, so
   * under a burst at the very edge of a limit a concurrent request can be refused early; never
   * the other way round: no window ever lets more than its limit through).
   */
  hit(accountId: string, windows: RateWindow[]): Promise<RateDecision>;
  /**
   * hit, then (when the windows allow the request) acquireSlot, as one step: with Redis one round
   * trip, which is what every API request pays. A request the windows allow counts against them
   * even if it is then refused a slot: it was served an answer.
   */
  admit(accountId: string, windows: RateWindow[], maxSlots: number, leaseMs: number): Promise<Admission>;
  /** Takes one of the account's `max` concurrency slots, leased for `leaseMs` (renew long holders). */
  acquireSlot(accountId: string, max: number, leaseMs: number): Promise<SlotDecision>;
  /** Extends a slot's lease (long requests and real-time streams). */
  renewSlot(accountId: string, slotId: string, leaseMs: number): Promise<void>;
  /**
   * Frees a slot. Never rejects: with Redis unreachable the slot is freed when its lease ends.
   * Redis settles once it has the release (it goes with the node's next batch).
   */
  releaseSlot(accountId: string, slotId: string): Promise<void>;
  /**
   * The synchronous fast path, only on a limiter that decides without I/O (memory): admit and
   * releaseSlot answered at once, so the API's hot path takes no promise for its limits. Reach it
   * through admitNow and releaseNow below, which fall back on the promise methods.
   */
  readonly immediate?: ImmediateLimits;
  slotsInUse(accountId: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Limiter.admit, answered synchronously when the limiter has the fast path (memory), else its
 * promise. The one place the either-type lives: callers that can take both (the HTTP hook) use
 * this, everyone else awaits limiter.admit.
 */
export function admitNow(
  limiter: Limiter,
  accountId: string,
  windows: RateWindow[],
  maxSlots: number,
  leaseMs: number,
): Admission | Promise<Admission> {
  return limiter.immediate
    ? limiter.immediate.admit(accountId, windows, maxSlots, leaseMs)
    : limiter.admit(accountId, windows, maxSlots, leaseMs);
}

/** Limiter.releaseSlot, done synchronously (undefined) when the limiter has the fast path, else its promise. */
export function releaseNow(limiter: Limiter, accountId: string, slotId: string): void | Promise<void> {
  return limiter.immediate ? limiter.immediate.releaseSlot(accountId, slotId) : limiter.releaseSlot(accountId, slotId);
}
