// Per-account request rates and concurrency slots on every authenticated route (decisions #26):
// 429 RATE_LIMIT_EXCEEDED / CONCURRENT_LIMIT with Retry-After, and the X-RateLimit-* and IETF
// RateLimit / RateLimit-Policy fields on every authenticated response. A slot is held from the
// start of the request to its last byte and released however the response ends. A request the
// windows let through counts against them even if it is then refused a slot: it was served an answer.

import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import type { Config, PlanConfig } from '../config.js';
import type { Account } from '../accounts/types.js';
import type { Limiter, RateDecision } from '../limits/limiter.js';
import { ApiError } from '../errors.js';

/** A slot's lease; renewed while the request runs, so a crashed node frees its slots this fast. */
export const SLOT_LEASE_MS = 30_000;

/**
 * Counts one request (an API call or a real-time stream) against the plan's windows and takes one
 * of its concurrency slots, in one limiter step. Returns the windows' decision (for the headers)
 * and either the slot or the 429 to answer with.
 */
export async function admitRequest(
  limiter: Limiter,
  account: Account,
  plan: PlanConfig,
  leaseMs: number,
): Promise<{ decision: RateDecision; slotId: string; refusal: null } | { decision: RateDecision; slotId: null; refusal: ApiError }> {
  const windows = [
    { windowSeconds: 60, limit: plan.requestsPerMinute },
    { windowSeconds: 3600, limit: plan.requestsPerHour },
  ];
  const { rate: decision, slot } = await limiter.admit(account.id, windows, plan.concurrent, leaseMs);
  if (!decision.allowed || !slot) {
    const refusal = new ApiError('RATE_LIMIT_EXCEEDED', {
      message: `The ${account.plan} plan allows ${plan.requestsPerMinute} requests per minute and ${plan.requestsPerHour} per hour.`,
      retryAfter: decision.retryAfter,
      details: { limit: decision.limit, window_seconds: decision.windowSeconds },
    });
    return { decision, slotId: null, refusal };
  }
  if (!slot.ok) {
    const refusal = new ApiError('CONCURRENT_LIMIT', {
      message: `The ${account.plan} plan allows ${plan.concurrent} concurrent request${plan.concurrent === 1 ? '' : 's'} or real-time stream${plan.concurrent === 1 ? '' : 's'}; ${slot.inUse} ${slot.inUse === 1 ? 'is' : 'are'} running.`,
      retryAfter: slot.retryAfter,
      details: { limit: plan.concurrent, in_use: slot.inUse },
    });
    return { decision, slotId: null, refusal };
  }
  return { decision, slotId: slot.slotId, refusal: null };
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
export function rateLimitHeaders(reply: FastifyReply, d: RateDecision): void {
  reply.header('X-RateLimit-Limit', String(d.limit));
  reply.header('X-RateLimit-Remaining', String(d.remaining));
  // Unix time (seconds) at which the tightest window resets, as most HTTP APIs do.
  reply.header('X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000) + d.resetSeconds));
  reply.header('RateLimit-Policy', d.windows.map((w) => `"${policyName(w.windowSeconds)}";q=${w.limit};w=${w.windowSeconds}`).join(', '));
  reply.header('RateLimit', d.windows.map((w) => `"${policyName(w.windowSeconds)}";r=${w.remaining};t=${w.resetSeconds}`).join(', '));
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
    app.addHook('onRequest', async (request, reply) => {
      // Set by the auth hook on every authenticated route, null on public ones.
      if (!request.auth) return;
      const { account } = request.auth;
      const plan = config.product.plans[account.plan];
      // The windows and the slot in one step (one Redis round trip).
      const { decision, slotId, refusal } = await admitRequest(limiter, account, plan, leaseMs);
      rateLimitHeaders(reply, decision);
      if (refusal) throw refusal;
      renewer.hold(account.id, slotId);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        renewer.drop(slotId);
        void limiter.releaseSlot(account.id, slotId).catch(() => undefined);
      };
      // 'close' fires when the last byte was written and also when the client went away.
      reply.raw.once('close', release);
      request.raw.once('error', release);
      // A client that left while the slot was being taken closed the response already: no 'close'
      // is coming, and the renewals would otherwise keep the slot forever.
      if (reply.raw.closed || request.raw.destroyed) release();
    });
  },
  { name: 'parla-rate-limit', fastify: '5.x', dependencies: ['parla-auth'] },
);
