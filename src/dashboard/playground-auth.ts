// The playground in the dashboard calls the real API (/api/v1/tts/generate, /stt/transcribe,
// listings) with the session cookie instead of an X-API-Key. Such a request is authenticated as the account through
// a key of its own, "Dashboard playground", one per mode (X-Parla-Mode: live|test, default live),
// created on first use. Its raw key is random and thrown away: it is never shown and never needed,
// the key only gives the requests an owner in the ledger, so the playground's usage appears in the
// key list like any other key's. Rate limits, credits and quota then apply unchanged.
//
// Because those requests spend credits, X-CSRF-Token is required on every method here (GET too):
// a page on another site can make the browser send the cookie only if SameSite were ignored, and
// even then cannot know the token.

import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import type { AuthContext } from '../accounts/auth-context.js';
import type { ApiKeyRecord, KeyMode } from '../domain/accounts.js';
import { createApiKey } from '../accounts/admin.js';
import { KeyTouch } from '../accounts/key-touch.js';
import { effectiveKeyState } from '../accounts/api-keys.js';
import { ApiError } from '../errors.js';
import { checkCsrf } from './csrf.js';
import type { SessionManager } from './sessions.js';
import { sessionCookie } from '../http/session-cookie.js';

export const PLAYGROUND_KEY_NAME = 'Dashboard playground';
export const MODE_HEADER = 'x-parla-mode';
const CACHE_MAX = 10_000;

function requestedMode(request: FastifyRequest): KeyMode {
  const raw = request.headers[MODE_HEADER];
  const v = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
  if (v === undefined || v === '') return 'live';
  if (v === 'live' || v === 'test') return v;
  throw new ApiError('INVALID_PARAMETER', {
    message: 'X-Parla-Mode must be live or test.',
    details: { field: 'X-Parla-Mode', provided: v },
  });
}

export class PlaygroundAuth {
  /** account:mode -> id of its playground key, so a request costs one indexed read, not a key list. */
  private readonly keyIds = new Map<string, string>();
  /** First use creates the key once per node even when several requests arrive together. */
  private readonly creating = new Map<string, Promise<ApiKeyRecord>>();
  private readonly keyTouch: KeyTouch;

  constructor(
    private readonly store: Store,
    private readonly config: Config,
    private readonly sessions: SessionManager,
  ) {
    this.keyTouch = new KeyTouch(store);
  }

  /**
   * The caller as the account's playground key when the request has the session cookie; null when
   * it has none (the API-key path then answers as before). 401 SESSION_REQUIRED for a stale
   * session, 403 CSRF_FAILED without the session's token.
   */
  async authenticate(request: FastifyRequest): Promise<AuthContext | null> {
    const token = sessionCookie(request);
    if (token === undefined) return null;
    const session = await this.sessions.resolve(token);
    if (!session) throw new ApiError('SESSION_REQUIRED');
    checkCsrf(request, session);
    const mode = requestedMode(request);
    const account = await this.store.getAccount(session.accountId);
    if (!account) throw new ApiError('SESSION_REQUIRED');
    const key = await this.playgroundKey(account.id, mode);
    this.keyTouch.touch(key.id);
    return { account, key, mode };
  }

  private async playgroundKey(accountId: string, mode: KeyMode): Promise<ApiKeyRecord> {
    const slot = `${accountId}:${mode}`;
    const knownId = this.keyIds.get(slot);
    if (knownId !== undefined) {
      const key = await this.store.getKey(knownId);
      if (key && usable(key)) return key;
      this.keyIds.delete(slot);
    }
    let pending = this.creating.get(slot);
    if (!pending) {
      pending = this.findOrCreate(accountId, mode).finally(() => this.creating.delete(slot));
      this.creating.set(slot, pending);
    }
    const key = await pending;
    if (this.keyIds.size >= CACHE_MAX) this.keyIds.clear();
    this.keyIds.set(slot, key.id);
    return key;
  }

  private async findOrCreate(accountId: string, mode: KeyMode): Promise<ApiKeyRecord> {
    const mine = (await this.store.listKeys(accountId)).filter((k) => k.name === PLAYGROUND_KEY_NAME && k.mode === mode);
    const active = mine.find(usable);
    if (active) return active;
    // An operator's "disable" stops the playground as it stops any key; a key the owner revoked
    // is replaced (the owner can revoke it to start its statistics afresh).
    if (mine.some((k) => k.state === 'disabled'))
      throw new ApiError('AUTH_DISABLED_API_KEY', { message: `The ${mode} "${PLAYGROUND_KEY_NAME}" key is disabled.` });
    const { key } = await createApiKey(this.store, this.config, { accountId, name: PLAYGROUND_KEY_NAME, mode });
    return key;
  }
}

function usable(key: ApiKeyRecord): boolean {
  return effectiveKeyState(key) === 'active';
}
