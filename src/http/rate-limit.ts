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
import type { Config } from '../config.js';
import { releaseNow, type Limiter, type RateDecision } from '../limits/limiter.js';
import { admitRequest, policyName, SLOT_LEASE_MS, type AdmitResult } from '../limits/admission.js';
import type { ApiError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Frees the request's concurrency slot (idempotent); null until one is taken. The first call
     * may return a promise that settles once the limiter has the release (Redis).
     */
    releaseSlot: (() => void | Promise<void>) | null;
  }
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
            released.then(
              () => done(null, payload),
              () => done(null, payload),
            );
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
