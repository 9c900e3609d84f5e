// The storage port, shaped by what the service does with it (not generic CRUD).
// Two real implementations: SqliteStore (embedded default) and PostgresStore (many nodes).
// test/storage/store-contract.ts runs the same suite against both.
//
// Billing works with holds: before work starts the request's price is held (taken from the
// balance under a row lock / immediate transaction, so concurrent requests can never spend the
// same credits); on success the hold is settled into exactly one ledger row, refunding any
// difference; on failure it is released. A crashed node's holds expire and are released.

import type {
  Account,
  ApiKeyRecord,
  ApiKeyWithUsage,
  DailyUsage,
  Feature,
  KeyMode,
  Plan,
  StoredKeyState,
  UsageRecord,
  UsageSummary,
} from '../domain/accounts.js';

/** The database cannot be reached; the edge answers 503 CREDIT_CHECK_FAILED (decisions #34). */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export interface NewAccount {
  name: string;
  plan: Plan;
  credits?: number;
  testCredits?: number;
  email?: string | null;
  passwordHash?: string | null;
}

export interface NewApiKey {
  accountId: string;
  name: string;
  mode: KeyMode;
  /** Keyed hash (HMAC-SHA256 hex) of the full key; the full key is never stored. */
  hash: string;
  prefix: string;
  expiresAt: Date | null;
}

export interface HoldRequest {
  holdId: string;
  accountId: string;
  mode: KeyMode;
  credits: number;
  /** Characters this request will count against the monthly quota (0 for STT). */
  characters: number;
  /** The quota check: ledger characters since periodStart + held characters + characters <= limit. */
  characterLimit: number | null;
  periodStart: Date;
  /** After this instant an unsettled hold is considered abandoned (crashed node) and released. */
  expiresAt: Date;
}

export type HoldResult =
  | { ok: true; balance: number }
  | { ok: false; reason: 'credits'; balance: number }
  | { ok: false; reason: 'quota'; charactersUsed: number };

/**
 * A signed-in dashboard session. The raw session token lives only in the browser's cookie; the
 * store keeps its SHA-256 (`idHash`), so a leaked database cannot be replayed as a cookie.
 */
export interface DashboardSession {
  idHash: string;
  accountId: string;
  /** Sent back by the page in X-CSRF-Token on every state-changing request. */
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** Idle timeout and absolute lifetime folded into one instant (src/dashboard/sessions.ts). */
  expiresAt: Date;
}

export interface SettleResult {
  /** Balance of the hold's mode after settlement. */
  balance: number;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Applies pending versioned migrations. Idempotent. */
  migrate(): Promise<void>;
  /** Cheap readiness probe; rejects when the database is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;

  // Accounts
  createAccount(input: NewAccount): Promise<Account>;
  getAccount(id: string): Promise<Account | null>;
  findAccountByEmail(email: string): Promise<(Account & { passwordHash: string | null }) | null>;
  listAccounts(): Promise<Account[]>;
  countAccounts(): Promise<number>;
  setPlan(accountId: string, plan: Plan): Promise<void>;
  setFeature(accountId: string, feature: Feature, enabled: boolean): Promise<void>;
  /** The account's jobs keep no result (docs/jobs.md); stored beside the feature switches. */
  setZeroRetention(accountId: string, on: boolean): Promise<void>;
  setPassword(accountId: string, email: string, passwordHash: string): Promise<void>;
  /** Adds (or with a negative amount removes, never below zero) credits; returns the new balance. */
  addCredits(accountId: string, mode: KeyMode, amount: number): Promise<number>;
  getBalance(accountId: string, mode: KeyMode): Promise<number>;

  // API keys
  createKey(input: NewApiKey): Promise<ApiKeyRecord>;
  findKeyByHash(hash: string): Promise<{ key: ApiKeyRecord; account: Account } | null>;
  getKey(keyId: string): Promise<ApiKeyRecord | null>;
  listKeys(accountId: string): Promise<ApiKeyWithUsage[]>;
  /** Returns false when the transition is not allowed (revoked is final). */
  setKeyState(keyId: string, state: StoredKeyState): Promise<boolean>;
  touchKey(keyId: string, at: Date): Promise<void>;

  // Billing
  holdCredits(req: HoldRequest): Promise<HoldResult>;
  /** Adds to a running hold (real-time streams); same checks as holdCredits. */
  extendHold(
    holdId: string,
    extraCredits: number,
    extraCharacters: number,
    characterLimit: number | null,
    periodStart: Date,
    expiresAt: Date,
  ): Promise<HoldResult>;
  /**
   * One transaction: remove the hold, refund held minus usage.credits, write the ledger row.
   * Idempotent per usage.requestId. The ledger row records what was actually charged: beyond the
   * hold (or with the hold already expired) only as far as the balance goes (src/storage/settlement.ts).
   */
  settleHold(holdId: string, usage: UsageRecord): Promise<SettleResult>;
  releaseHold(holdId: string): Promise<void>;
  /** Releases holds whose expiresAt has passed; returns how many. */
  releaseExpiredHolds(now: Date): Promise<number>;

  // Usage
  usageSummary(accountId: string, mode: KeyMode, periodStart: Date, dayStart: Date): Promise<UsageSummary>;
  dailyUsage(accountId: string, mode: KeyMode, from: Date): Promise<DailyUsage[]>;
  listUsage(accountId: string, mode: KeyMode, limit: number): Promise<UsageRecord[]>;

  // Webhook signing secret (job webhooks, docs/jobs.md)
  /**
   * The account's webhook secret. An account without one gets `fresh` (a new whsec_ value the
   * caller made), stored atomically, so two nodes asking at once agree. Null for an unknown account.
   */
  getWebhookSecret(accountId: string, fresh: string): Promise<string | null>;
  /** Replaces the secret with `fresh`; false for an unknown account. Signatures with the old one stop verifying. */
  rotateWebhookSecret(accountId: string, fresh: string): Promise<boolean>;

  // Dashboard sessions (shared by every node through the database)
  createSession(session: DashboardSession): Promise<void>;
  /** The session, or null when unknown or expired at `now`. */
  getSession(idHash: string, now: Date): Promise<DashboardSession | null>;
  /** Records activity: moves lastSeenAt and expiresAt (never past what the caller computed). */
  touchSession(idHash: string, lastSeenAt: Date, expiresAt: Date): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Signs an account out everywhere (after a password change); returns how many were removed. */
  deleteAccountSessions(accountId: string): Promise<number>;
  /** Removes sessions expired at `now`; returns how many. */
  deleteExpiredSessions(now: Date): Promise<number>;
}
