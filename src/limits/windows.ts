// Request-rate windows on rate-limiter-flexible, shared by the memory and Redis limiters: the
// library does the counting (atomically in Redis); this adds "a refused request is not counted"
// (its points are given back) and the combined decision over several windows.

import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RateWindow } from './limiter.js';

export type LimiterFactory = (window: RateWindow) => RateLimiterAbstract;

function isRes(v: unknown): v is RateLimiterRes {
  return typeof v === 'object' && v !== null && 'msBeforeNext' in v && 'remainingPoints' in v;
}

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

  async hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    const consumed: Array<{ w: RateWindow; res: RateLimiterRes }> = [];
    let refused: { w: RateWindow; res: RateLimiterRes } | null = null;
    for (const w of windows) {
      try {
        const res = await this.limiter(w).consume(accountId, 1);
        consumed.push({ w, res });
      } catch (err) {
        if (!isRes(err)) throw err;
        // Give this window's point back, and every earlier window's: a refused request is not counted.
        await this.limiter(w).reward(accountId, 1);
        for (const c of consumed) await this.limiter(c.w).reward(accountId, 1);
        refused = { w, res: err };
        break;
      }
    }
    if (refused) {
      const retryAfter = Math.max(1, Math.ceil(refused.res.msBeforeNext / 1000));
      return {
        allowed: false,
        limit: refused.w.limit,
        remaining: 0,
        resetSeconds: retryAfter,
        retryAfter,
        windows: [{ windowSeconds: refused.w.windowSeconds, limit: refused.w.limit, remaining: 0, resetSeconds: retryAfter }],
      };
    }
    const states = consumed.map(({ w, res }) => ({
      windowSeconds: w.windowSeconds,
      limit: w.limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    }));
    const tightest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a), states[0] ?? { windowSeconds: 60, limit: 0, remaining: 0, resetSeconds: 60 });
    return { allowed: true, limit: tightest.limit, remaining: tightest.remaining, resetSeconds: tightest.resetSeconds, retryAfter: 0, windows: states };
  }
}
