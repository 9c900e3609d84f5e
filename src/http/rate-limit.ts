// Per-account request rates and concurrency slots on every authenticated route (decisions #26):
// 429 RATE_LIMIT_EXCEEDED / CONCURRENT_LIMIT with Retry-After, and the X-RateLimit-* and IETF
// RateLimit / RateLimit-Policy fields on every authenticated response. A slot is held from the
// start of the request until its answer is complete (a whole answer: just before it is written; a
// streamed one: its last byte) and released however the response ends. A request the
// windows let through counts against them even if it is then refused a slot: it was served an answer.

import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';
import { forAuthenticatedRoutes } from './auth.js';
import { appendRouteHook } from './route-hooks.js';
import type { Config, PlanConfig } from '../config.js';
import type { Account } from '../accounts/types.js';
import { admitNow, releaseNow, type Admission, type Limiter, type RateDecision, type RateWindow } from '../limits/limiter.js';
import { ApiError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Frees the request's concurrency slot (idempotent); null until one is taken. The first call
     * may return a promise that settles once the limiter has the release (Redis).
     */
    releaseSlot: (() => void | Promise<void>) | null;
  }
}

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

export type AdmitResult = { decision: RateDecision; policy: string } & ({ slotId: string; refusal: null } | { slotId: null; refusal: ApiError });

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
function policyName(windowSeconds: number): string {
  return windowSeconds === 60 ? 'minute' : windowSeconds === 3600 ? 'hour' : `${windowSeconds}s`;
}

/**
 * X-RateLimit-* describe the most constraining window (the refusing one on a 429). The IETF fields
 * follow draft-ietf-httpapi-ratelimit-headers-10/11 (structured-field lists of named policies):
 *   RateLimit-Policy: "minute";q=10;w=60, "hour";q=100;w=3600
 *   RateLimit: "minute";r=9;t=58, "hour";r=99;t=3598
 */
export function rateLimitHeaders(reply: FastifyReply, d: RateDecision, policy: string): void {
  let current = '';
  for (const w of d.windows) current += `${current ? ', ' : ''}"${policyName(w.windowSeconds)}";r=${w.remaining};t=${w.resetSeconds}`;
  reply.header('x-ratelimit-limit', String(d.limit));
  reply.header('x-ratelimit-remaining', String(d.remaining));
  // Unix time (seconds) at which the tightest window resets, as most HTTP APIs do.
  reply.header('x-ratelimit-reset', String(Math.ceil(Date.now() / 1000) + d.resetSeconds));
  reply.header('ratelimit-policy', policy);
  reply.header('ratelimit', current);
}

/**
 * Renews the leases of the slots held by requests in flight: one timer for all of them rather than
 * one per request. Every slot is renewed at each tick, three times per lease, so a slot taken just
 * after a tick is renewed within a third of its lease, as a timer of its own would.
 */
class SlotRenewer {
  private readonly held = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly limiter: Limiter,
    private readonly leaseMs: number,
  ) {}

  hold(accountId: string, slotId: string): void {
    this.held.set(slotId, accountId);
    if (!this.timer) {
      this.timer = setInterval(() => this.renewAll(), this.leaseMs / 3);
      this.timer.unref();
    }
  }

  drop(slotId: string): void {
    this.held.delete(slotId);
  }

  private renewAll(): void {
    if (this.held.size === 0) {
      clearInterval(this.timer!);
      this.timer = null;
      return;
    }
    for (const [slotId, accountId] of this.held) void this.limiter.renewSlot(accountId, slotId, this.leaseMs).catch(() => undefined);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

export const rateLimitPlugin = fp(
  async (app, opts: { limiter: Limiter; config: Config; leaseMs?: number }) => {
    const { limiter, config } = opts;
    const leaseMs = opts.leaseMs ?? SLOT_LEASE_MS;
    const renewer = new SlotRenewer(limiter, leaseMs);
    app.addHook('onClose', async () => renewer.stop());

    const admitted = (request: FastifyRequest, reply: FastifyReply, r: AdmitResult): ApiError | null => {
      rateLimitHeaders(reply, r.decision, r.policy);
      if (r.refusal) return r.refusal;
      const accountId = request.auth.account.id;
      const slotId = r.slotId;
      renewer.hold(accountId, slotId);
      let released = false;
      const release = (): void | Promise<void> => {
        if (released) return;
        released = true;
        renewer.drop(slotId);
        return releaseNow(limiter, accountId, slotId);
      };
      // A finished answer is written only once its slot is free (the onSend hook below), so a
      // client that has the answer finds the slot free when it sends its next request, to this
      // node or another; a streamed answer frees it as its last byte is handed to the socket.
      // The response's 'close' covers a client that went away before either (it also follows a
      // request stream's error: the socket is destroyed with it).
      // on, not once: it fires at most once, release is idempotent, and once wraps the listener.
      request.releaseSlot = release;
      reply.raw.on('close', release);
      // A client that left while the slot was being taken closed the response already: no 'close'
      // is coming, and the renewals would otherwise keep the slot forever.
      if (reply.raw.closed || request.raw.destroyed) release();
      return null;
    };

    app.decorateRequest('releaseSlot', null);
    // After the auth hook on every authenticated route (this plugin registers after auth). A
    // callback hook: with the memory limiter the whole step is synchronous and takes no promise.
    const admit: onRequestHookHandler = (request, reply, done) => {
      const { account } = request.auth;
      let r: AdmitResult | Promise<AdmitResult>;
      try {
        // The windows and the slot in one step (one Redis round trip).
        r = admitRequest(limiter, account, config.product.plans[account.plan], leaseMs);
      } catch (err) {
        return done(err as Error);
      }
      if (r instanceof Promise) {
        r.then((x) => admitted(request, reply, x)).then((refusal) => done(refusal ?? undefined), done);
        return;
      }
      done(admitted(request, reply, r) ?? undefined);
    };
    const releaseWithAnswer: onSendHookHandler = (request, reply, payload, done) => {
      const release = request.releaseSlot;
      if (release) {
        const streamed = payload !== null && typeof payload === 'object' && typeof (payload as { pipe?: unknown }).pipe === 'function';
        // 'prefinish': end() has handed the last byte to the socket.
        if (streamed) {
          reply.raw.on('prefinish', release);
        } else {
          // With Redis the release goes with the turn's batch: the answer waits for its reply.
          const released = release();
          if (released) {
            released.then(() => done(null, payload), () => done(null, payload));
            return;
          }
        }
      }
      done(null, payload);
    };
    forAuthenticatedRoutes(app, (route) => {
      appendRouteHook(route, 'onRequest', admit);
      appendRouteHook(route, 'onSend', releaseWithAnswer);
    });
  },
  { name: 'parla-rate-limit', fastify: '5.x', dependencies: ['parla-auth'] },
);
