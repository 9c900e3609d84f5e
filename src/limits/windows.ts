// Request-rate windows: fixed windows that start at an account's first request. In memory,
// rate-limiter-flexible does the counting (WindowCounter); the Redis limiter counts the same way,
// atomically, in its own script (redis-limiter.ts). Both decide against each window's limit with
// rateDecision, so one counter per window length serves every plan (a plan change mid-window
// keeps the count, in memory as in Redis), a refused request is not counted, and several windows
// combine.

import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RateWindow } from './limiter.js';

/** Makes the counter for one window length; its own points limit must never be reached. */
export type LimiterFactory = (windowSeconds: number) => RateLimiterAbstract;

/** The points of the library counters: high enough that only this module ever refuses. */
export const UNLIMITED_POINTS = Number.MAX_SAFE_INTEGER;

/**
 * A point is given back only while its window has at least this long to run. A give-back that
 * arrived after the window rolled over would start the next window at -1 and let one request too
 * many through; a point left in a window that ends within this margin costs nothing.
 */
const REWARD_MARGIN_MS = 250;

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class WindowCounter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(private readonly factory: LimiterFactory) {}

  private limiter(w: RateWindow): RateLimiterAbstract {
    let l = this.limiters.get(w.windowSeconds);
    if (!l) {
      l = this.factory(w.windowSeconds);
      this.limiters.set(w.windowSeconds, l);
    }
    return l;
  }

  private async giveBack(w: RateWindow, accountId: string, res: RateLimiterRes): Promise<void> {
    if (res.msBeforeNext >= REWARD_MARGIN_MS) await this.limiter(w).reward(accountId, 1);
  }

  async hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    if (windows.length === 0) throw new Error('WindowCounter.hit needs at least one window');
    const counted = await Promise.all(windows.map((w) => this.limiter(w).consume(accountId, 1)));
    const decision = rateDecision(windows, counted);
    // A refused request is not counted: every window gets its point back.
    if (!decision.allowed) await Promise.all(windows.map((w, i) => this.giveBack(w, accountId, counted[i]!)));
    return decision;
  }
}

/** One window's count including the request being decided, and when that window resets. */
export interface WindowCount {
  consumedPoints: number;
  msBeforeNext: number;
}

/**
 * The decision for a request from every window's count including it: allowed when no window is
 * over its limit. Shared by the counters here and the Redis script, which counts the same way.
 */
export function rateDecision(windows: RateWindow[], counted: WindowCount[]): RateDecision {
  const results = counted.map((res, i) => {
    const w = windows[i]!;
    return { w, res, allowed: res.consumedPoints <= w.limit, remaining: Math.max(0, w.limit - res.consumedPoints) };
  });
  const refused = results.filter((r) => !r.allowed);
  if (refused.length > 0) {
    // Retrying helps only once every refusing window has reset: report the one that takes longest.
    const worst = refused.reduce((a, b) => (b.res.msBeforeNext > a.res.msBeforeNext ? b : a));
    const retryAfter = seconds(worst.res.msBeforeNext);
    const states = results.map(({ w, res, allowed, remaining }) => ({
      windowSeconds: w.windowSeconds,
      limit: w.limit,
      // An allowing window's count included this request, which is not counted.
      remaining: allowed ? Math.min(w.limit, remaining + 1) : 0,
      resetSeconds: seconds(res.msBeforeNext),
    }));
    return { allowed: false, windowSeconds: worst.w.windowSeconds, limit: worst.w.limit, remaining: 0, resetSeconds: retryAfter, retryAfter, windows: states };
  }
  const states = results.map(({ w, res, remaining }) => ({
    windowSeconds: w.windowSeconds,
    limit: w.limit,
    remaining,
    resetSeconds: seconds(res.msBeforeNext),
  }));
  // With equal remaining counts the longer window is the one that takes longer to recover.
  const tightest = states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a));
  return { allowed: true, windowSeconds: tightest.windowSeconds, limit: tightest.limit, remaining: tightest.remaining, resetSeconds: tightest.resetSeconds, retryAfter: 0, windows: states };
}
