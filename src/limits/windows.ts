// Request-rate windows on rate-limiter-flexible, shared by the memory and Redis limiters: the
// library does the counting (atomically in Redis, with fixed windows that start at an account's
// first request); this adds "a refused request is not counted" (its points are given back) and the
// combined decision over several windows.

import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RateWindow } from './limiter.js';

export type LimiterFactory = (window: RateWindow) => RateLimiterAbstract;

type WindowState = RateDecision['windows'][number];

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

  /** A window's state without counting anything (for the windows a refused request never reached). */
  private async peek(w: RateWindow, accountId: string): Promise<WindowState> {
    const res = await this.limiter(w).get(accountId);
    if (!res) return { windowSeconds: w.windowSeconds, limit: w.limit, remaining: w.limit, resetSeconds: w.windowSeconds };
    return { windowSeconds: w.windowSeconds, limit: w.limit, remaining: Math.max(0, w.limit - res.consumedPoints), resetSeconds: seconds(res.msBeforeNext) };
  }

  async hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    const consumed: Array<{ w: RateWindow; res: RateLimiterRes }> = [];
    let refused: { w: RateWindow; res: RateLimiterRes } | null = null;
    for (const w of windows) {
      try {
        consumed.push({ w, res: await this.limiter(w).consume(accountId, 1) });
      } catch (err) {
        if (!isRes(err)) throw err;
        refused = { w, res: err };
        break;
      }
    }
    if (refused) {
      const no = refused;
      // Give this window's point back, and every earlier window's: a refused request is not counted.
      await Promise.all([no, ...consumed].map((c) => this.giveBack(c.w, accountId, c.res)));
      const retryAfter = seconds(no.res.msBeforeNext);
      const states = await Promise.all(
        windows.map((w) =>
          w === no.w ? { windowSeconds: w.windowSeconds, limit: w.limit, remaining: 0, resetSeconds: retryAfter } : this.peek(w, accountId),
        ),
      );
      return { allowed: false, windowSeconds: no.w.windowSeconds, limit: no.w.limit, remaining: 0, resetSeconds: retryAfter, retryAfter, windows: states };
    }
    const states = consumed.map(({ w, res }) => ({
      windowSeconds: w.windowSeconds,
      limit: w.limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: seconds(res.msBeforeNext),
    }));
    // With equal remaining counts the longer window is the one that takes longer to recover.
    const tightest = states.reduce<WindowState | undefined>(
      (a, b) => (!a || b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a),
      undefined,
    );
    if (!tightest) throw new Error('WindowCounter.hit needs at least one window');
    return { allowed: true, windowSeconds: tightest.windowSeconds, limit: tightest.limit, remaining: tightest.remaining, resetSeconds: tightest.resetSeconds, retryAfter: 0, windows: states };
  }
}
