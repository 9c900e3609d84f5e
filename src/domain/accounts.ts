// Domain types of accounts, keys and usage: the vocabulary shared by storage, accounts, billing,
// config and the edges. It sits below all of them and imports nothing, so storage and accounts
// can both use it without importing each other.

export const PLANS = ['free', 'basic', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Live keys draw on the live balance and counters, test keys on the test ones (decisions #24). */
export type KeyMode = 'live' | 'test';

export const FEATURES = ['tts', 'tts_stream', 'stt', 'stt_realtime', 'diarization'] as const;
export type Feature = (typeof FEATURES)[number];
export type FeatureSwitches = Record<Feature, boolean>;

export const KEY_STATES = ['active', 'revoked', 'disabled'] as const;
/** Stored state. "expired" is derived from expires_at at authentication time. */
export type StoredKeyState = (typeof KEY_STATES)[number];
export type KeyState = StoredKeyState | 'expired';

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  email: string | null;
  /** Live and test credit balances (integers, never below zero). */
  credits: number;
  testCredits: number;
  features: FeatureSwitches;
  /**
   * Jobs of the account keep no result (docs/jobs.md, Retention): an operator policy, off by
   * default, kept in the same JSON column as the feature switches (`parla accounts zero-retention`).
   */
  zeroRetention: boolean;
  /** The account's monthly period is anchored on this instant (the day of month it started). */
  periodAnchor: Date;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  mode: KeyMode;
  /** Display prefix, e.g. "svc_live_AbC1". Never the full key. */
  prefix: string;
  state: StoredKeyState;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface ApiKeyWithUsage extends ApiKeyRecord {
  requests: number;
  creditsUsed: number;
}

export type UsageKind = 'tts' | 'tts_stream' | 'stt' | 'stt_realtime';

/** One row of the usage ledger: written in the same transaction as the balance change. */
export interface UsageRecord {
  requestId: string;
  accountId: string;
  keyId: string;
  mode: KeyMode;
  kind: UsageKind;
  model: string;
  /** TTS: characters billed; STT: seconds billed. */
  units: number;
  /** Characters counted against the monthly quota (0 for STT). */
  characters: number;
  credits: number;
  createdAt: Date;
}

export interface UsageSummary {
  charactersUsed: number;
  creditsUsed: number;
  requestsToday: number;
  requestsThisMonth: number;
}

export interface DailyUsage {
  /** YYYY-MM-DD (UTC). */
  day: string;
  kind: 'tts' | 'stt';
  requests: number;
  credits: number;
}
