// MemoryLimiter: limits for a single node (the default). Counters and slots live in this process.

import { randomUUID } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Limiter, RateDecision, RateWindow, SlotDecision } from './limiter.js';
import { WindowCounter } from './windows.js';

export class MemoryLimiter implements Limiter {
  readonly kind = 'memory' as const;
  private readonly windows = new WindowCounter((w) => new RateLimiterMemory({ points: w.limit, duration: w.windowSeconds, keyPrefix: `rl${w.windowSeconds}` }));
  /** account -> slot id -> lease expiry (ms). */
  private readonly slots = new Map<string, Map<string, number>>();

  hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    return this.windows.hit(accountId, windows);
  }

  private live(accountId: string): Map<string, number> {
    let m = this.slots.get(accountId);
    if (!m) {
      m = new Map();
      this.slots.set(accountId, m);
    }
    const now = Date.now();
    for (const [id, exp] of m) if (exp <= now) m.delete(id);
    return m;
  }

  async acquireSlot(accountId: string, max: number, leaseMs: number): Promise<SlotDecision> {
    const m = this.live(accountId);
    if (m.size >= max) {
      const soonest = Math.min(...m.values());
      return { ok: false, inUse: m.size, retryAfter: Math.max(1, Math.min(5, Math.ceil((soonest - Date.now()) / 1000))) };
    }
    const slotId = randomUUID();
    m.set(slotId, Date.now() + leaseMs);
    return { ok: true, slotId, inUse: m.size };
  }

  async renewSlot(accountId: string, slotId: string, leaseMs: number): Promise<void> {
    const m = this.slots.get(accountId);
    if (m?.has(slotId)) m.set(slotId, Date.now() + leaseMs);
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
