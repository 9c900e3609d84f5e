// MemoryLimiter: limits for a single node (the default). Counters and slots live in this process.
// RedisLimiter also uses one as this node's own fallback while Redis is unreachable.

import { randomUUID } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Admission, Limiter, RateDecision, RateWindow, SlotDecision } from './limiter.js';
import { UNLIMITED_POINTS, WindowCounter } from './windows.js';

/** A refused caller is told to come back within this many seconds at most: slots free up at any moment. */
export const SLOT_RETRY_MAX_SECONDS = 5;

export function slotRetryAfter(msUntilFirstExpiry: number): number {
  return Math.max(1, Math.min(SLOT_RETRY_MAX_SECONDS, Math.ceil(msUntilFirstExpiry / 1000)));
}

export class MemoryLimiter implements Limiter {
  readonly kind = 'memory' as const;
  private readonly windows = new WindowCounter((windowSeconds) => new RateLimiterMemory({ points: UNLIMITED_POINTS, duration: windowSeconds, keyPrefix: `rl${windowSeconds}` }));
  /** account -> slot id -> lease expiry (ms). */
  private readonly slots = new Map<string, Map<string, number>>();

  hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    return this.windows.hit(accountId, windows);
  }

  async admit(accountId: string, windows: RateWindow[], maxSlots: number, leaseMs: number): Promise<Admission> {
    const rate = await this.hit(accountId, windows);
    return { rate, slot: rate.allowed ? await this.acquireSlot(accountId, maxSlots, leaseMs) : null };
  }

  /** The account's unexpired leases (expired ones are dropped here, as the Redis script does). */
  private live(accountId: string): Map<string, number> {
    const m = this.slots.get(accountId) ?? new Map<string, number>();
    const now = Date.now();
    for (const [id, exp] of m) if (exp <= now) m.delete(id);
    if (m.size === 0) this.slots.delete(accountId);
    return m;
  }

  async acquireSlot(accountId: string, max: number, leaseMs: number): Promise<SlotDecision> {
    const m = this.live(accountId);
    if (m.size >= max) return { ok: false, inUse: m.size, retryAfter: slotRetryAfter(Math.min(...m.values()) - Date.now()) };
    const slotId = randomUUID();
    m.set(slotId, Date.now() + leaseMs);
    this.slots.set(accountId, m);
    return { ok: true, slotId, inUse: m.size };
  }

  async renewSlot(accountId: string, slotId: string, leaseMs: number): Promise<void> {
    const m = this.live(accountId);
    // An expired lease is gone for good: renewing cannot resurrect a slot someone else may now hold.
    if (m.has(slotId)) m.set(slotId, Date.now() + leaseMs);
  }

  async releaseSlot(accountId: string, slotId: string): Promise<void> {
    const m = this.slots.get(accountId);
    if (!m) return;
    m.delete(slotId);
    if (m.size === 0) this.slots.delete(accountId);
  }

  async slotsInUse(accountId: string): Promise<number> {
    return this.live(accountId).size;
  }

  async close(): Promise<void> {
    this.slots.clear();
  }
}
