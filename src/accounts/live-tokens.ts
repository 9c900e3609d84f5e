// Short-lived tokens for browsers (docs/realtime.md, "Browser tokens", which says why stateless): a key holder's
// server asks for one (POST /api/v1/auth/tokens, OpenAI's /v1/realtime/client_secrets, Deepgram's
// /v1/auth/grant) and hands it to a browser, which opens one live socket with it and never sees
// the key. A token is stateless and signed: `ek_` + base64url(payload) + `.` + base64url(HMAC),
// the payload naming the key, the expiry and a nonce. Nothing is stored, so there is nothing to
// leak from the database and nothing to migrate; the key's state is read when the token is used,
// so a revoked, disabled or expired key's tokens stop working at once (KeyAuthenticator.authenticateLive).
// Tokens open live sockets only: the HTTP routes' authentication does not accept them.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.js';

export const TOKEN_PREFIX = 'ek_';
/** A token's life when the caller names none (seconds). */
export const TOKEN_DEFAULT_TTL_SECONDS = 60;
/** The longest life a token may be given: it only opens a socket, so a long one buys nothing. */
export const TOKEN_MAX_TTL_SECONDS = 3600;
/** Longer input is not a token: refused before any decoding or HMAC. */
const MAX_TOKEN_LENGTH = 512;
const TOKEN_SHAPE = /^ek_([A-Za-z0-9_-]{8,400})\.([A-Za-z0-9_-]{43})$/;

export interface TokenClaims {
  /** The id of the key that made the token. */
  keyId: string;
  /** Expiry, seconds since the epoch. */
  expiresAt: number;
}

export interface IssuedToken extends TokenClaims {
  token: string;
  ttlSeconds: number;
}

/** Whether a credential is shaped as a token (so it goes to the token check, not the key lookup). */
export function isLiveToken(raw: string): boolean {
  return raw.startsWith(TOKEN_PREFIX);
}

/**
 * The ttl a caller asked for, checked: a whole number of seconds from 1 to the maximum; absent is
 * the default. `field` names the parameter in the error (each dialect calls it differently).
 */
export function tokenTtl(value: unknown, field: string, min = 1): number {
  if (value === undefined || value === null) return TOKEN_DEFAULT_TTL_SECONDS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > TOKEN_MAX_TTL_SECONDS) {
    throw new ApiError('INVALID_PARAMETER', {
      message: `${field} must be a whole number of seconds from ${min} to ${TOKEN_MAX_TTL_SECONDS}.`,
      details: { field, provided: typeof value === 'number' || typeof value === 'string' ? String(value).slice(0, 40) : typeof value },
    });
  }
  return value;
}

export class LiveTokens {
  private readonly signingKey: Buffer;

  /** `secret` is the deployment's key secret (PARLA_KEY_SECRET): every node verifies every node's tokens. */
  constructor(secret: string) {
    // A key of its own, derived, so a token's MAC can never be mistaken for a key hash.
    this.signingKey = createHmac('sha256', secret).update('parla live token v1').digest();
  }

  issue(keyId: string, ttlSeconds: number, now = Date.now()): IssuedToken {
    const expiresAt = Math.floor(now / 1000) + ttlSeconds;
    const payload = Buffer.from(JSON.stringify({ k: keyId, e: expiresAt, n: randomBytes(9).toString('base64url') })).toString('base64url');
    return { token: `${TOKEN_PREFIX}${payload}.${this.mac(payload)}`, keyId, expiresAt, ttlSeconds };
  }

  /**
   * The claims of a well-signed, unexpired token, or the 401 to answer: AUTH_INVALID_API_KEY for
   * anything not signed here, AUTH_EXPIRED_API_KEY (naming the token) past its expiry.
   */
  verify(raw: string, now = Date.now()): TokenClaims {
    const m = raw.length <= MAX_TOKEN_LENGTH ? TOKEN_SHAPE.exec(raw) : null;
    if (!m) throw invalid();
    const [, payload, mac] = m as unknown as [string, string, string];
    const expected = Buffer.from(this.mac(payload), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    let claims: { k?: unknown; e?: unknown };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k?: unknown; e?: unknown };
    } catch {
      throw invalid();
    }
    if (typeof claims?.k !== 'string' || typeof claims.e !== 'number') throw invalid();
    if (claims.e * 1000 <= now) {
      throw new ApiError('AUTH_EXPIRED_API_KEY', {
        message: 'The token has expired; ask your server for a new one.',
        details: { expired_at: new Date(claims.e * 1000).toISOString() },
      });
    }
    return { keyId: claims.k, expiresAt: claims.e };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.signingKey).update(payload).digest('base64url');
  }
}

function invalid(): ApiError {
  return new ApiError('AUTH_INVALID_API_KEY', { message: 'The token is not valid: it was not issued by this server, or it was altered.' });
}
