// GET /dashboard/api/usage: the account's period at a glance plus one entry per day of the
// current period (up to today, zeros filled) for the charts, split into TTS (tts + tts_stream)
// and STT (stt + stt_realtime) as the store groups them.

import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import type { Account, DailyUsage, KeyMode } from '../domain/accounts.js';
import { isoDate } from '../accounts/period.js';
import { usageReport } from '../accounts/usage-report.js';

export interface DayTotals {
  day: string;
  tts: { requests: number; credits: number };
  stt: { requests: number; credits: number };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Every UTC day from `from` to `to` (both included), with the rows' totals or zeros. */
export function fillDays(rows: DailyUsage[], from: Date, to: Date): DayTotals[] {
  const byDay = new Map<string, DayTotals>();
  const first = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  for (let t = first; t <= to.getTime(); t += DAY_MS) {
    const day = isoDate(new Date(t));
    byDay.set(day, { day, tts: { requests: 0, credits: 0 }, stt: { requests: 0, credits: 0 } });
  }
  for (const r of rows) {
    const entry = byDay.get(r.day);
    if (!entry) continue; // a row dated after `to` (clock skew between nodes) is not charted
    entry[r.kind].requests += r.requests;
    entry[r.kind].credits += r.credits;
  }
  return [...byDay.values()];
}

export async function dashboardUsage(store: Store, config: Config, account: Account, mode: KeyMode, now: Date = new Date()) {
  const report = await usageReport(store, config, account, mode, now);
  const rows = await store.dailyUsage(account.id, mode, report.period.start);
  const { plan, period, summary } = report;
  return {
    mode,
    plan: account.plan,
    period: { start: period.start.toISOString(), end: period.end.toISOString(), renewal_date: report.renewalDate },
    credits: { live: account.credits, test: account.testCredits },
    credits_used_this_period: summary.creditsUsed,
    characters: { used: summary.charactersUsed, limit: plan.monthlyCharacters, remaining: report.charactersRemaining },
    requests: { today: summary.requestsToday, this_month: summary.requestsThisMonth },
    rate_limits: {
      requests_per_minute: plan.requestsPerMinute,
      requests_per_hour: plan.requestsPerHour,
      concurrent_requests: plan.concurrent,
    },
    daily: fillDays(rows, period.start, now),
  };
}
