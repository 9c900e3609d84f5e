// Sign-in attempts are limited per email and per client address on the service's own limiter
// (memory on one node, Redis when REDIS_URL is set, so every node counts together). Every attempt
// counts, right or wrong, and is counted before the password is checked, so guessing costs the
// attacker the same whether the guesses are right or not. An attempt refused by one limit still
// counts against the other (an address hammering a locked email uses up its own allowance).
//
// Per email: 10 attempts per 15 minutes stops guessing one account's password from many addresses
// (at the price that someone can lock an owner out for 15 minutes by failing on purpose).
// Per address: 30 per 15 minutes stops one client from trying many accounts; it is higher so
// that several people behind one NAT can still sign in.

import { createHash } from 'node:crypto';
import type { Limiter, RateDecision } from '../limits/limiter.js';
import { ApiError } from '../errors.js';

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const SIGN_IN_LIMIT_PER_EMAIL = 10;
export const SIGN_IN_LIMIT_PER_ADDRESS = 30;

/** Limiter keys hold a digest, so Redis never stores who tried to sign in. */
function limiterKey(kind: 'email' | 'ip', value: string): string {
  return `signin:${kind}:${createHash('sha256').update(value).digest('hex').slice(0, 32)}`;
}

export class SignInLimiter {
  constructor(private readonly limiter: Limiter) {}

  /** Counts one attempt; 429 RATE_LIMIT_EXCEEDED with Retry-After when either limit is reached. */
  async attempt(email: string, address: string): Promise<void> {
    const window = (limit: number) => [{ windowSeconds: SIGN_IN_WINDOW_SECONDS, limit }];
    const [byEmail, byAddress] = await Promise.all([
      this.limiter.hit(limiterKey('email', email), window(SIGN_IN_LIMIT_PER_EMAIL)),
      this.limiter.hit(limiterKey('ip', address), window(SIGN_IN_LIMIT_PER_ADDRESS)),
    ]);
    const refused = [byEmail, byAddress].filter((d): d is RateDecision => !d.allowed);
    if (refused.length === 0) return;
    const retryAfter = Math.max(...refused.map((d) => d.retryAfter));
    throw new ApiError('RATE_LIMIT_EXCEEDED', {
      message: `Too many sign-in attempts; try again in ${Math.ceil(retryAfter / 60)} minute${retryAfter > 60 ? 's' : ''}.`,
      retryAfter,
      details: { limit: refused[0]!.limit, window_seconds: SIGN_IN_WINDOW_SECONDS },
    });
  }
}
