// API key format and hashing. Keys are `svc_live_` / `svc_test_` + 40 random base62 characters.
// Only an HMAC-SHA256 of the key (keyed with the deployment's secret) is stored, so a leaked
// database alone cannot be used to check guessed keys; the display prefix keeps 4 characters.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord, KeyMode, KeyState } from '../domain/accounts.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const RANDOM_LENGTH = 40;
/**
 * Active keys one account may hold per mode (live, test), the dashboard playground's own key not
 * counted: far above what any real integration uses, low enough that a script cannot grow an
 * account's key list (and each request's key lookups) without bound.
 */
export const MAX_ACTIVE_KEYS_PER_MODE = 100;

const KEY_PATTERN = /^svc_(live|test)_[A-Za-z0-9]{32,128}$/;

export function generateApiKey(mode: KeyMode): string {
  // Rejection sampling keeps every character uniformly distributed.
  let out = '';
  while (out.length < RANDOM_LENGTH) {
    for (const b of randomBytes(64)) {
      if (b < 248 && out.length < RANDOM_LENGTH) out += ALPHABET[b % 62];
    }
  }
  return `svc_${mode}_${out}`;
}

/** The mode a well-formed key claims, or null for anything that is not shaped like a key. */
export function keyMode(rawKey: string): KeyMode | null {
  const m = KEY_PATTERN.exec(rawKey);
  return m ? (m[1] as KeyMode) : null;
}

export function hashApiKey(secret: string, rawKey: string): string {
  return createHmac('sha256', secret).update(rawKey).digest('hex');
}

export function keyPrefix(rawKey: string): string {
  return rawKey.slice(0, 'svc_live_'.length + 4);
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The state shown to people: the stored one, or "expired" for an active key past its expires_at. */
export function effectiveKeyState(key: Pick<ApiKeyRecord, 'state' | 'expiresAt'>, now: Date = new Date()): KeyState {
  return key.state === 'active' && key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime() ? 'expired' : key.state;
}
