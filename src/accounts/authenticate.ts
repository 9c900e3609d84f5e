// Turns a raw API key into an AuthContext, or the authentication error of decisions #22.
// Shared by the HTTP hook and the real-time upgrade. A short cache (under a second) keeps hot
// keys off the database while still honouring a revocation on another node within one second.

import type { Store } from '../storage/store.js';
import { ApiError } from '../errors.js';
import { hashApiKey, keyMode } from './api-keys.js';
import type { AuthContext } from './auth-context.js';
import type { Account, ApiKeyRecord } from '../domain/accounts.js';
import { KeyTouch } from './key-touch.js';
import { isLiveToken, LiveTokens } from './live-tokens.js';

const CACHE_TTL_MS = 500;
const CACHE_MAX = 10_000;

interface CacheEntry {
  at: number;
  found: { key: ApiKeyRecord; account: Account } | null;
}

export class KeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly keyTouch: KeyTouch;
  private lastSweep = 0;
  /** Browser tokens (live-tokens.ts): signed with a key derived from the same secret. */
  readonly tokens: LiveTokens;

  constructor(
    private readonly store: Store,
    private readonly secret: string,
  ) {
    this.keyTouch = new KeyTouch(store);
    this.tokens = new LiveTokens(secret);
  }

  /**
   * For live sockets only (native, Deepgram's, OpenAI Realtime): a key, or a browser token made by
   * one. A token stands for its key: the same account, plan, limits and billing, and the key's state
   * now (revoked, disabled, expired) decides as it would for the key itself.
   */
  async authenticateLive(raw: string | undefined | null): Promise<AuthContext> {
    if (typeof raw !== 'string' || !isLiveToken(raw.trim())) return this.authenticate(raw);
    const claims = this.tokens.verify(raw.trim());
    const key = await this.store.getKey(claims.keyId);
    const account = key ? await this.store.getAccount(key.accountId) : null;
    return this.accept(key && account ? { key, account } : null);
  }

  /**
   * The key's AuthContext, or the ApiError of decisions #22 (thrown, or as the rejection when the
   * store had to be asked). Synchronous on a cache hit, which is nearly every request of a busy key:
   * the HTTP hook then takes no promise.
   */
  authenticate(rawKey: string | undefined | null): AuthContext | Promise<AuthContext> {
    if (rawKey === undefined || rawKey === null) throw new ApiError('AUTH_MISSING_API_KEY');
    // Only well-formed keys are cached: a hit needs neither the trim nor the format check.
    const fast = this.cached(rawKey);
    if (fast !== undefined) return this.accept(fast);
    const key = rawKey.trim();
    if (key === '') throw new ApiError('AUTH_MISSING_API_KEY');
    const mode = keyMode(key);
    if (mode === null) {
      throw new ApiError('AUTH_INVALID_API_KEY', {
        message: 'The API key is not recognized: keys start with svc_live_ or svc_test_.',
      });
    }
    const hit = this.cached(key);
    return hit !== undefined ? this.accept(hit) : this.lookup(key).then((found) => this.accept(found));
  }

  private accept(found: CacheEntry['found']): AuthContext {
    if (!found) throw new ApiError('AUTH_INVALID_API_KEY');
    const { key: record, account } = found;
    if (record.state === 'revoked') throw new ApiError('AUTH_REVOKED_API_KEY');
    if (record.state === 'disabled') throw new ApiError('AUTH_DISABLED_API_KEY');
    if (record.expiresAt && record.expiresAt.getTime() <= Date.now()) {
      throw new ApiError('AUTH_EXPIRED_API_KEY', { details: { expired_at: record.expiresAt.toISOString() } });
    }
    this.keyTouch.touch(record.id);
    return { account, key: record, mode: record.mode };
  }

  /** Forget cached lookups (after a local revoke/disable, so this node refuses at once). */
  invalidate(): void {
    this.cache.clear();
  }

  /** Forget the cached lookup of one key (the dashboard revoked it on this node). */
  invalidateKey(keyId: string): void {
    for (const [sent, entry] of this.cache) if (entry.found?.key.id === keyId) this.cache.delete(sent);
  }

  /**
   * Cached by the key as sent, so a hit costs no HMAC (the largest part of authenticating a hot
   * key). Undefined when not cached (or no longer fresh).
   */
  private cached(rawKey: string): CacheEntry['found'] | undefined {
    const hit = this.cache.get(rawKey);
    if (!hit) return undefined;
    if (Date.now() - hit.at < CACHE_TTL_MS) return hit.found;
    this.cache.delete(rawKey);
    return undefined;
  }

  /**
   * Asks the store. Expired entries are swept at most once per TTL on a miss, so a raw key stays in
   * the cache about as long as the requests that carried it, not until the map fills.
   */
  private async lookup(rawKey: string): Promise<CacheEntry['found']> {
    const now = Date.now();
    const found = await this.store.findKeyByHash(hashApiKey(this.secret, rawKey));
    this.sweep(now);
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(rawKey, { at: now, found });
    return found;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < CACHE_TTL_MS) return;
    this.lastSweep = now;
    for (const [sent, entry] of this.cache) if (now - entry.at >= CACHE_TTL_MS) this.cache.delete(sent);
  }
}
