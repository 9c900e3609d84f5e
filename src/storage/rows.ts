// Row <-> domain mapping shared by both stores (timestamps arrive as ms numbers from SQLite and as
// Date objects from PostgreSQL).

import type { DashboardSession } from './store.js';
import {
  FEATURES,
  type Account,
  type ApiKeyRecord,
  type FeatureSwitches,
  type KeyMode,
  type Plan,
  type StoredKeyState,
  type UsageKind,
  type UsageRecord,
} from '../domain/accounts.js';

export type Stamp = number | string | Date;

export function toDate(v: Stamp): Date {
  return v instanceof Date ? v : new Date(typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v);
}

export function toDateOrNull(v: Stamp | null | undefined): Date | null {
  return v === null || v === undefined ? null : toDate(v);
}

function settingsObject(raw: unknown): Partial<Record<string, boolean>> {
  return (typeof raw === 'string' ? JSON.parse(raw || '{}') : (raw ?? {})) as Partial<Record<string, boolean>>;
}

/**
 * The account's `features` column with `patch` applied, as JSON: feature switches and the
 * zero-retention flag share it, and a change to one keeps the others.
 */
export function patchAccountSettings(raw: unknown, patch: Record<string, boolean>): string {
  return JSON.stringify({ ...parseFeatures(raw), zero_retention: settingsObject(raw).zero_retention === true, ...patch });
}

export function parseFeatures(raw: unknown): FeatureSwitches {
  const obj = settingsObject(raw);
  const out = {} as FeatureSwitches;
  for (const f of FEATURES) out[f] = obj[f] !== false;
  return out;
}

export interface AccountRow {
  id: string;
  name: string;
  plan: string;
  email: string | null;
  password_hash?: string | null;
  credits: number | string;
  test_credits: number | string;
  features: unknown;
  period_anchor: Stamp;
  created_at: Stamp;
}

export function accountFromRow(r: AccountRow): Account {
  return {
    id: r.id,
    name: r.name,
    plan: r.plan as Plan,
    email: r.email,
    credits: Number(r.credits),
    testCredits: Number(r.test_credits),
    features: parseFeatures(r.features),
    zeroRetention: settingsObject(r.features).zero_retention === true,
    periodAnchor: toDate(r.period_anchor),
    createdAt: toDate(r.created_at),
  };
}

export interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  mode: string;
  prefix: string;
  state: string;
  expires_at: Stamp | null;
  created_at: Stamp;
  last_used_at: Stamp | null;
}

export function keyFromRow(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    mode: r.mode as KeyMode,
    prefix: r.prefix,
    state: r.state as StoredKeyState,
    expiresAt: toDateOrNull(r.expires_at),
    createdAt: toDate(r.created_at),
    lastUsedAt: toDateOrNull(r.last_used_at),
  };
}

export interface LedgerRow {
  request_id: string;
  account_id: string;
  key_id: string;
  mode: string;
  kind: string;
  model: string;
  units: number | string;
  characters: number | string;
  credits: number | string;
  created_at: Stamp;
}

export function usageFromRow(r: LedgerRow): UsageRecord {
  return {
    requestId: r.request_id,
    accountId: r.account_id,
    keyId: r.key_id,
    mode: r.mode as KeyMode,
    kind: r.kind as UsageKind,
    model: r.model,
    units: Number(r.units),
    characters: Number(r.characters),
    credits: Number(r.credits),
    createdAt: toDate(r.created_at),
  };
}

/** Column holding the balance of a mode. */
export function balanceColumn(mode: KeyMode): 'credits' | 'test_credits' {
  return mode === 'live' ? 'credits' : 'test_credits';
}

export interface HoldRow {
  id: string;
  account_id: string;
  mode: KeyMode;
  credits: number;
  characters: number;
}

export interface SessionRow {
  id_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: Stamp;
  last_seen_at: Stamp;
  expires_at: Stamp;
}

export function sessionFromRow(r: SessionRow): DashboardSession {
  return {
    idHash: r.id_hash,
    accountId: r.account_id,
    csrfToken: r.csrf_token,
    createdAt: toDate(r.created_at),
    lastSeenAt: toDate(r.last_seen_at),
    expiresAt: toDate(r.expires_at),
  };
}
