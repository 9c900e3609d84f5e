// Dashboard sessions: a random token in the `parla_session` cookie, its SHA-256 in the store (so
// every node sees every session, and a copy of the database cannot be replayed as a cookie).
//
// Lifetime: a session ends after 12 hours without a request (idle) and at the latest 7 days
// after sign-in (absolute), whichever comes first. Both are folded into the stored expires_at,
// which activity moves forward at most once a minute (not one write per request).

import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { DashboardSession, Store } from '../storage/store.js';

export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
/** Activity is written back at most this often per session. */
const TOUCH_EVERY_MS = 60_000;
/** 32 random bytes, base64url: the only shape a token we issued can have. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface SessionTimes {
  idleMs: number;
  absoluteMs: number;
}

export class SessionManager {
  private readonly times: SessionTimes;

  constructor(
    private readonly store: Store,
    times: Partial<SessionTimes> = {},
  ) {
    this.times = { idleMs: times.idleMs ?? SESSION_IDLE_MS, absoluteMs: times.absoluteMs ?? SESSION_ABSOLUTE_MS };
  }

  private expiry(createdAt: Date, now: Date): Date {
    return new Date(Math.min(now.getTime() + this.times.idleMs, createdAt.getTime() + this.times.absoluteMs));
  }

  /** Starts a session; returns the raw token for the cookie (it is not stored anywhere). */
  async create(accountId: string, now: Date = new Date()): Promise<{ token: string; session: DashboardSession }> {
    // Sessions are only ever added here, so sweeping here keeps the table at the live sessions
    // plus those that expired since the last sign-in, on one node or many.
    await this.store.deleteExpiredSessions(now);
    const token = newToken();
    const session: DashboardSession = {
      idHash: hashSessionToken(token),
      accountId,
      csrfToken: newToken(),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: this.expiry(now, now),
    };
    await this.store.createSession(session);
    return { token, session };
  }

  /** The live session of a cookie value, recording the activity; null for anything else. */
  async resolve(token: string | undefined, now: Date = new Date()): Promise<DashboardSession | null> {
    if (token === undefined || !TOKEN_PATTERN.test(token)) return null;
    const session = await this.store.getSession(hashSessionToken(token), now);
    if (!session) return null;
    if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      const expiresAt = this.expiry(session.createdAt, now);
      await this.store.touchSession(session.idHash, now, expiresAt);
      return { ...session, lastSeenAt: now, expiresAt };
    }
    return session;
  }

  async destroy(session: DashboardSession): Promise<void> {
    await this.store.deleteSession(session.idHash);
  }

  /**
   * Cookie attributes: HttpOnly (page scripts never see the token), SameSite=Strict (never sent
   * on a request another site starts), Secure when the request came over TLS (directly, or per
   * X-Forwarded-Proto from a proxy the config trusts: PARLA_TRUST_PROXY). Max-Age is the
   * absolute lifetime; the server enforces the idle timeout.
   */
  cookieOptions(request: FastifyRequest): CookieSerializeOptions {
    return {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      secure: request.protocol === 'https',
      maxAge: Math.floor(this.times.absoluteMs / 1000),
    };
  }
}
