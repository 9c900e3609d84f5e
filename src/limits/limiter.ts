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

export type SlotDecision =
  | { ok: true; slotId: string; inUse: number }
  | { ok: false; inUse: number; retryAfter: number };

/** The windows' decision, and the slot taken when they allowed the request (null when they refused it). */
export interface Admission {
  rate: RateDecision;
  slot: SlotDecision | null;
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
   * even if it is then refused a slot: it was served an answer. A limiter that decides without I/O
   * (memory) answers synchronously, so the HTTP hook takes no promise for it.
   */
  admit(accountId: string, windows: RateWindow[], maxSlots: number, leaseMs: number): Admission | Promise<Admission>;
  /** Takes one of the account's `max` concurrency slots, leased for `leaseMs` (renew long holders). */
  acquireSlot(accountId: string, max: number, leaseMs: number): Promise<SlotDecision>;
  /** Extends a slot's lease (long requests and real-time streams). */
  renewSlot(accountId: string, slotId: string, leaseMs: number): Promise<void>;
  /**
   * Frees a slot. Memory frees it synchronously; Redis answers with a promise that settles once
   * Redis has it (never rejects: an unreachable Redis frees the slot when its lease ends).
   */
  releaseSlot(accountId: string, slotId: string): void | Promise<void>;
  slotsInUse(accountId: string): Promise<number>;
  close(): Promise<void>;
}
