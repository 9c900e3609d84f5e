// An account's usage in its current period, for one mode: what GET /api/v1/usage,
// GET /api/v1/user/credits and the dashboard report, computed once here.

import type { Config, PlanConfig } from '../config.js';
import type { Store } from '../storage/store.js';
import { currentPeriod, isoDate, startOfUtcDay, type Period } from './period.js';
import type { Account, KeyMode, UsageSummary } from '../domain/accounts.js';

export interface UsageReport {
  plan: PlanConfig;
  period: Period;
  /** The day the next period starts (YYYY-MM-DD, UTC). */
  renewalDate: string;
  summary: UsageSummary;
  charactersRemaining: number;
}

export async function usageReport(
  store: Store,
  config: Config,
  account: Account,
  mode: KeyMode,
  now: Date = new Date(),
): Promise<UsageReport> {
  const plan = config.product.plans[account.plan];
  const period = currentPeriod(account.periodAnchor, now);
  const summary = await store.usageSummary(account.id, mode, period.start, startOfUtcDay(now));
  return {
    plan,
    period,
    renewalDate: isoDate(period.end),
    summary,
    charactersRemaining: Math.max(0, plan.monthlyCharacters - summary.charactersUsed),
  };
}
