// Request-rate windows: fixed windows that start at an account's first request. In memory,
// FixedWindows counts; the Redis limiter counts the same way, atomically, in its own script
// (redis-limiter.ts). Both decide against each window's limit with rateDecision, so one counter
// per window length serves every plan (a plan change mid-window keeps the count, in memory as in
// Redis), a refused request is not counted, and several windows combine.

import type { RateDecision, RateWindow } from './limiter.js';

/** One window's count including the request being decided, and when that window resets. */
export interface WindowCount {
  consumedPoints: number;
  msBeforeNext: number;
}

interface Count {
  count: number;
  resetAt: number;
}

/**
 * In-process fixed windows, decided synchronously. Written here rather than taken from
 * rate-limiter-flexible (which this limiter used before): its memory limiter answers through a
 * promise per window and counts before it knows whether another window refuses, so a refusal had
 * to give points back afterwards; on an API request whose whole budget is a few tens of
 * microseconds, that was a third of the server's time per request (docs/benchmarks.md). Here the
 * windows are read, decided and counted in one synchronous step, which is also exact under any
 * burst: nothing runs between the check and the count.
 */
export class FixedWindows {
  /** Window length (s) -> key -> its count. */
  private readonly counts = new Map<number, Map<string, Count>>();
  private lastSweep = 0;

  hit(key: string, windows: RateWindow[], now = Date.now()): RateDecision {
    if (windows.length === 0) throw new Error('FixedWindows.hit needs at least one window');
    this.sweep(now);
    const entries: Count[] = [];
    const counted: WindowCount[] = [];
    for (const w of windows) {
      let byKey = this.counts.get(w.windowSeconds);
      if (!byKey) this.counts.set(w.windowSeconds, (byKey = new Map()));
      let c = byKey.get(key);
      if (!c || c.resetAt <= now) byKey.set(key, (c = { count: 0, resetAt: now + w.windowSeconds * 1000 }));
      entries.push(c);
      counted.push({ consumedPoints: c.count + 1, msBeforeNext: c.resetAt - now });
    }
    const decision = rateDecision(windows, counted);
    if (decision.allowed) for (const c of entries) c.count++;
    return decision;
  }

  /** Drops ended windows, at most once a minute, so idle keys do not stay in memory. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const byKey of this.counts.values()) for (const [key, c] of byKey) if (c.resetAt <= now) byKey.delete(key);
  }

  clear(): void {
    this.counts.clear();
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The decision for a request from every window's count including it: allowed when no window is
 * over its limit. Shared by the counters here and the Redis script, which counts the same way.
 * Plain loops: this runs on every API request.
 */
export function rateDecision(windows: RateWindow[], counted: WindowCount[]): RateDecision {
  // The refusing window that takes longest to reset: retrying helps only once every one has.
  let worst = -1;
  for (let i = 0; i < windows.length; i++) {
    if (counted[i]!.consumedPoints > windows[i]!.limit && (worst < 0 || counted[i]!.msBeforeNext > counted[worst]!.msBeforeNext)) worst = i;
  }
  const states: RateDecision['windows'] = [];
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i]!;
    const res = counted[i]!;
    const allowed = res.consumedPoints <= w.limit;
    const remaining = Math.max(0, w.limit - res.consumedPoints);
    // On a refusal, an allowing window's count included this request, which is not counted.
    states.push({
      windowSeconds: w.windowSeconds,
      limit: w.limit,
      remaining: worst < 0 ? remaining : allowed ? Math.min(w.limit, remaining + 1) : 0,
      resetSeconds: seconds(res.msBeforeNext),
    });
  }
  if (worst >= 0) {
    const retryAfter = seconds(counted[worst]!.msBeforeNext);
    const w = windows[worst]!;
    return {
      allowed: false,
      windowSeconds: w.windowSeconds,
      limit: w.limit,
      remaining: 0,
      resetSeconds: retryAfter,
      retryAfter,
      windows: states,
    };
  }
  // With equal remaining counts the longer window is the one that takes longer to recover.
  let tightest = states[0]!;
  for (const s of states)
    if (s.remaining < tightest.remaining || (s.remaining === tightest.remaining && s.resetSeconds > tightest.resetSeconds)) tightest = s;
  return {
    allowed: true,
    windowSeconds: tightest.windowSeconds,
    limit: tightest.limit,
    remaining: tightest.remaining,
    resetSeconds: tightest.resetSeconds,
    retryAfter: 0,
    windows: states,
  };
}
