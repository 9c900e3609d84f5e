// Job webhook signatures, in the common `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` form
// (Stripe's scheme): the timestamp inside the MAC lets a receiver refuse replays of old deliveries.
// The verifier is the receiver's side, used by the tests and shown in docs/jobs.md.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-parla-signature';
export const WEBHOOK_ID_HEADER = 'x-parla-webhook-id';
/** A receiver accepts a signature this many seconds either side of its own clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new account webhook secret: whsec_ and 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function mac(secret: string, t: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/** The X-Parla-Signature value for a body sent at unix second `t`. */
export function signWebhook(secret: string, body: string | Buffer, t: number): string {
  return `t=${t},v1=${mac(secret, t, body)}`;
}

/**
 * True when `header` carries a v1 signature of `body` under `secret` made within the tolerance.
 * Several v1 entries are allowed (a sender may sign with an old and a new secret while rotating).
 * Parsing is a plain split (no regex on the header), the comparison constant-time.
 */
export function verifyWebhookSignature(opts: {
  secret: string;
  header: string | undefined;
  body: string | Buffer;
  nowSeconds?: number;
  toleranceSeconds?: number;
}): boolean {
  const header = opts.header;
  if (typeof header !== 'string' || header.length > 4096) return false;
  let t: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1') candidates.push(v);
  }
  if (t === null || candidates.length === 0) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(mac(opts.secret, t, opts.body), 'hex');
  let ok = false;
  for (const c of candidates) {
    const given = /^[0-9a-f]{64}$/.test(c) ? Buffer.from(c, 'hex') : Buffer.alloc(32);
    if (timingSafeEqual(given, expected) && given.length === expected.length && c.length === 64) ok = true;
  }
  return ok;
}
