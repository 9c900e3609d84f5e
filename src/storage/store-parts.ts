// The parts a Store is made of beside its accounts and keys (billing, usage, dashboard sessions),
// each written once per database (postgres/, sqlite/), and the one place that hands the Store's
// calls on to them.

import type { DailyUsage, KeyMode, UsageRecord, UsageSummary } from '../domain/accounts.js';
import type { DashboardSession, HoldRequest, HoldResult, SettleResult, Store } from './store.js';

export type BillingPart = Pick<Store, 'holdCredits' | 'extendHold' | 'settleHold' | 'releaseHold' | 'releaseExpiredHolds'>;
export type UsagePart = Pick<Store, 'usageSummary' | 'dailyUsage' | 'listUsage'>;
export type SessionsPart = Pick<
  Store,
  'createSession' | 'getSession' | 'touchSession' | 'deleteSession' | 'deleteAccountSessions' | 'deleteExpiredSessions'
>;

export abstract class StoreParts {
  constructor(
    private readonly billing: BillingPart,
    private readonly usage: UsagePart,
    private readonly sessions: SessionsPart,
  ) {}

  holdCredits(req: HoldRequest): Promise<HoldResult> {
    return this.billing.holdCredits(req);
  }

  extendHold(
    holdId: string,
    extraCredits: number,
    extraCharacters: number,
    characterLimit: number | null,
    periodStart: Date,
    expiresAt: Date,
  ): Promise<HoldResult> {
    return this.billing.extendHold(holdId, extraCredits, extraCharacters, characterLimit, periodStart, expiresAt);
  }

  settleHold(holdId: string, usage: UsageRecord): Promise<SettleResult> {
    return this.billing.settleHold(holdId, usage);
  }

  releaseHold(holdId: string): Promise<void> {
    return this.billing.releaseHold(holdId);
  }

  releaseExpiredHolds(now: Date): Promise<number> {
    return this.billing.releaseExpiredHolds(now);
  }

  usageSummary(accountId: string, mode: KeyMode, periodStart: Date, dayStart: Date): Promise<UsageSummary> {
    return this.usage.usageSummary(accountId, mode, periodStart, dayStart);
  }

  dailyUsage(accountId: string, mode: KeyMode, from: Date): Promise<DailyUsage[]> {
    return this.usage.dailyUsage(accountId, mode, from);
  }

  listUsage(accountId: string, mode: KeyMode, limit: number): Promise<UsageRecord[]> {
    return this.usage.listUsage(accountId, mode, limit);
  }

  createSession(x: DashboardSession): Promise<void> {
    return this.sessions.createSession(x);
  }

  getSession(idHash: string, now: Date): Promise<DashboardSession | null> {
    return this.sessions.getSession(idHash, now);
  }

  touchSession(idHash: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
    return this.sessions.touchSession(idHash, lastSeenAt, expiresAt);
  }

  deleteSession(idHash: string): Promise<void> {
    return this.sessions.deleteSession(idHash);
  }

  deleteAccountSessions(accountId: string): Promise<number> {
    return this.sessions.deleteAccountSessions(accountId);
  }

  deleteExpiredSessions(now: Date): Promise<number> {
    return this.sessions.deleteExpiredSessions(now);
  }
}
