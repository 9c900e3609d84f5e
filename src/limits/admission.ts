// Admission of one request or real-time stream: the plan's rate windows and one of its
// concurrency slots in one limiter step, and the 429 to answer when either refuses (decisions #26).
// Shared by the HTTP edge (src/http/rate-limit.ts) and the WebSocket edge (src/realtime/server.ts).

import type { PlanConfig } from '../config.js';
import type { Account } from '../domain/accounts.js';
import { admitNow, type Admission, type Limiter, type RateDecision, type RateWindow } from './limiter.js';
import { ApiError } from '../errors.js';

/** A slot's lease; renewed while the request runs, so a crashed node frees its slots this fast. */
export const SLOT_LEASE_MS = 30_000;

/** A plan's windows and its RateLimit-Policy field, built once per plan (plans are fixed at start). */
interface PlanWindows {
  windows: RateWindow[];
  policy: string;
}
const planWindowsCache = new WeakMap<PlanConfig, PlanWindows>();

function planWindows(plan: PlanConfig): PlanWindows {
  let p = planWindowsCache.get(plan);
  if (!p) {
    const windows = [
      { windowSeconds: 60, limit: plan.requestsPerMinute },
      { windowSeconds: 3600, limit: plan.requestsPerHour },
    ];
    p = { windows, policy: windows.map((w) => `"${policyName(w.windowSeconds)}";q=${w.limit};w=${w.windowSeconds}`).join(', ') };
    planWindowsCache.set(plan, p);
  }
  return p;
}

export type AdmitResult = { decision: RateDecision; policy: string } & (
  | { slotId: string; refusal: null }
  | { slotId: null; refusal: ApiError }
);

function judge(account: Account, plan: PlanConfig, policy: string, { rate: decision, slot }: Admission): AdmitResult {
  if (!decision.allowed || !slot) {
    const refusal = new ApiError('RATE_LIMIT_EXCEEDED', {
      message: `The ${account.plan} plan allows ${plan.requestsPerMinute} requests per minute and ${plan.requestsPerHour} per hour.`,
      retryAfter: decision.retryAfter,
      details: { limit: decision.limit, window_seconds: decision.windowSeconds },
    });
    return { decision, policy, slotId: null, refusal };
  }
  if (!slot.ok) {
    const refusal = new ApiError('CONCURRENT_LIMIT', {
      message: `The ${account.plan} plan allows ${plan.concurrent} concurrent request${plan.concurrent === 1 ? '' : 's'} or real-time stream${plan.concurrent === 1 ? '' : 's'}; ${slot.inUse} ${slot.inUse === 1 ? 'is' : 'are'} running.`,
      retryAfter: slot.retryAfter,
      details: { limit: plan.concurrent, in_use: slot.inUse },
    });
    return { decision, policy, slotId: null, refusal };
  }
  return { decision, policy, slotId: slot.slotId, refusal: null };
}

/**
 * Counts one request (an API call or a real-time stream) against the plan's windows and takes one
 * of its concurrency slots, in one limiter step. Returns the windows' decision (for the headers)
 * and either the slot or the 429 to answer with; synchronously when the limiter decides without
 * I/O (memory), so the HTTP hook then takes no promise.
 */
export function admitRequest(limiter: Limiter, account: Account, plan: PlanConfig, leaseMs: number): AdmitResult | Promise<AdmitResult> {
  const { windows, policy } = planWindows(plan);
  const admission = admitNow(limiter, account.id, windows, plan.concurrent, leaseMs);
  return admission instanceof Promise ? admission.then((a) => judge(account, plan, policy, a)) : judge(account, plan, policy, admission);
}

/** The policy names of the IETF fields: "minute" and "hour" for the plan windows. */
export function policyName(windowSeconds: number): string {
  return windowSeconds === 60 ? 'minute' : windowSeconds === 3600 ? 'hour' : `${windowSeconds}s`;
}
