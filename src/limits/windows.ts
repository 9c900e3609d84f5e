// Request-rate windows on rate-limiter-flexible, shared by the memory and Redis limiters: the
// library does the counting (atomically in Redis, with fixed windows that start at an account's
// first request); this adds "a refused request is not counted" (its points are given back) and the
// combined decision over several windows.

import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RateWindow } from './limiter.js';

export type LimiterFactory = (window: RateWindow) => RateLimiterAbstract;

/**
 * A point is given back only while its window has at least this long to run. A give-back that
 * arrived after the window rolled over would start the next window at -1 and let one request too
 * many through; a point left in a window that ends within this margin costs nothing.
 */
const REWARD_MARGIN_MS = 250;

function isRes(v: unknown): v is RateLimiterRes {
  return typeof v === 'object' && v !== null && 'msBeforeNext' in v && 'remainingPoints' in v;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class WindowCounter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(private readonly factory: LimiterFactory) {}

  private limiter(w: RateWindow): RateLimiterAbstract {
    const key = `${w.windowSeconds}:${w.limit}`;
    let l = this.limiters.get(key);
    if (!l) {
      l = this.factory(w);
      this.limiters.set(key, l);
    }
    return l;
  }

  private async giveBack(w: RateWindow, accountId: string, res: RateLimiterRes): Promise<void> {
    if (res.msBeforeNext >= REWARD_MARGIN_MS) await this.limiter(w).reward(accountId, 1);
  }

  async hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    if (windows.length === 0) throw new Error('WindowCounter.hit needs at least one window');
    // Every window is counted at once (with Redis: one round trip for all of them).
    const settled = await Promise.allSettled(windows.map((w) => this.limiter(w).consume(accountId, 1)));
    const results = settled.map((s, i) => {
      if (s.status === 'fulfilled') return { w: windows[i]!, res: s.value, allowed: true };
      if (!isRes(s.reason)) throw s.reason;
      return { w: windows[i]!, res: s.reason, allowed: false };
    });
    const refused = results.filter((r) => !r.allowed);
    if (refused.length > 0) {
      // A refused request is not counted: every window gets its point back.
      await Promise.all(results.map((r) => this.giveBack(r.w, accountId, r.res)));
      // Retrying helps only once every refusing window has reset: report the one that takes longest.
      const worst = refused.reduce((a, b) => (b.res.msBeforeNext > a.res.msBeforeNext ? b : a));
      const retryAfter = seconds(worst.res.msBeforeNext);
      const states = results.map(({ w, res, allowed }) => ({
        windowSeconds: w.windowSeconds,
        limit: w.limit,
        // An allowing window's count included this request, which was just given back.
        remaining: allowed ? Math.min(w.limit, Math.max(0, res.remainingPoints) + 1) : 0,
        resetSeconds: seconds(res.msBeforeNext),
      }));
      return { allowed: false, windowSeconds: worst.w.windowSeconds, limit: worst.w.limit, remaining: 0, resetSeconds: retryAfter, retryAfter, windows: states };
    }
    const states = results.map(({ w, res }) => ({
      windowSeconds: w.windowSeconds,
      limit: w.limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: seconds(res.msBeforeNext),
    }));
    // With equal remaining counts the longer window is the one that takes longer to recover.
    const tightest = states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a));
    return { allowed: true, windowSeconds: tightest.windowSeconds, limit: tightest.limit, remaining: tightest.remaining, resetSeconds: tightest.resetSeconds, retryAfter: 0, windows: states };
  }
}
