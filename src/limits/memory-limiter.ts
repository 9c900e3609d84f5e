// MemoryLimiter: limits for a single node (the default). Counters and slots live in this process,
// and every decision is synchronous: besides the port's promises it offers the immediate fast
// path (admit and release without a promise), so the API's hot path takes none for its limits. RedisLimiter also uses one as this node's own fallback while Redis is
// unreachable.

import type { Admission, ImmediateLimits, Limiter, RateDecision, RateWindow, SlotDecision } from './limiter.js';
import { FixedWindows } from './windows.js';

/** A refused caller is told to come back within this many seconds at most: slots free up at any moment. */
export const SLOT_RETRY_MAX_SECONDS = 5;

export function slotRetryAfter(msUntilFirstExpiry: number): number {
  return Math.max(1, Math.min(SLOT_RETRY_MAX_SECONDS, Math.ceil(msUntilFirstExpiry / 1000)));
}

export class MemoryLimiter implements Limiter {
  readonly kind = 'memory' as const;
  private readonly windows = new FixedWindows();
  /** account -> slot id -> lease expiry (ms). */
  private readonly slots = new Map<string, Map<string, number>>();
  private slotSeq = 0;
  readonly immediate: ImmediateLimits = {
    admit: (accountId, windows, maxSlots, leaseMs) => this.admitSync(accountId, windows, maxSlots, leaseMs),
    releaseSlot: (accountId, slotId) => this.freeSlot(accountId, slotId),
  };

  async hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    return this.windows.hit(accountId, windows);
  }

  async admit(accountId: string, windows: RateWindow[], maxSlots: number, leaseMs: number): Promise<Admission> {
    return this.admitSync(accountId, windows, maxSlots, leaseMs);
  }

  /** admit without a promise: the fast path, and RedisLimiter's fallback while Redis is away. */
  admitSync(accountId: string, windows: RateWindow[], maxSlots: number, leaseMs: number): Admission {
    const rate = this.windows.hit(accountId, windows);
    return { rate, slot: rate.allowed ? this.takeSlot(accountId, maxSlots, leaseMs) : null };
  }

  /** Drops the account's expired leases (as the Redis script does) and returns the live ones. */
  private live(accountId: string, now = Date.now()): Map<string, number> | undefined {
    const m = this.slots.get(accountId);
    if (!m) return undefined;
    for (const [id, exp] of m) if (exp <= now) m.delete(id);
    if (m.size === 0) this.slots.delete(accountId);
    return m.size === 0 ? undefined : m;
  }

  /** The synchronous slot step of admit and acquireSlot. */
  private takeSlot(accountId: string, max: number, leaseMs: number): SlotDecision {
    const now = Date.now();
    let m = this.slots.get(accountId);
    // Expired leases only matter when they would make the account look full: sweep only then.
    if (m && m.size >= max) m = this.live(accountId, now);
    const inUse = m?.size ?? 0;
    if (inUse >= max) {
      let first = Infinity;
      for (const exp of m?.values() ?? []) first = Math.min(first, exp);
      return { ok: false, inUse, retryAfter: slotRetryAfter(first - now) };
    }
    if (!m) this.slots.set(accountId, (m = new Map()));
    // Unique within this process, which is all a slot id held here needs to be.
    const slotId = `s${++this.slotSeq}`;
    m.set(slotId, now + leaseMs);
    return { ok: true, slotId, inUse: m.size };
  }

  async acquireSlot(accountId: string, max: number, leaseMs: number): Promise<SlotDecision> {
    return this.takeSlot(accountId, max, leaseMs);
  }

  async renewSlot(accountId: string, slotId: string, leaseMs: number): Promise<void> {
    const m = this.live(accountId);
    // An expired lease is gone for good: renewing cannot resurrect a slot someone else may now hold.
    if (m?.has(slotId)) m.set(slotId, Date.now() + leaseMs);
  }

  async releaseSlot(accountId: string, slotId: string): Promise<void> {
    this.freeSlot(accountId, slotId);
  }

  private freeSlot(accountId: string, slotId: string): void {
    const m = this.slots.get(accountId);
    if (!m) return;
    m.delete(slotId);
    if (m.size === 0) this.slots.delete(accountId);
  }

  /** Live slots of the account, synchronously. */
  slotsHeld(accountId: string): number {
    return this.live(accountId)?.size ?? 0;
  }

  async slotsInUse(accountId: string): Promise<number> {
    return this.slotsHeld(accountId);
  }

  async close(): Promise<void> {
    this.slots.clear();
    this.windows.clear();
  }
}
