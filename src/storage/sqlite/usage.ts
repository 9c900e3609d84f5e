// Reading the usage ledger on SQLite (the dashboard's and GET /v1/usage's figures).

import type { DailyUsage, KeyMode, UsageRecord, UsageSummary } from '../../domain/accounts.js';
import { usageFromRow, type LedgerRow } from '../rows.js';
import type { SqliteDatabase } from './database.js';

export class SqliteUsage {
  constructor(private readonly c: SqliteDatabase) {}

  async usageSummary(accountId: string, mode: KeyMode, periodStart: Date, dayStart: Date): Promise<UsageSummary> {
    // One read transaction: both counts come from the same snapshot of the ledger.
    const read = this.c.db.transaction((): UsageSummary => {
      const p = this.c
        .sql(
          'SELECT COALESCE(SUM(characters), 0) AS chars, COALESCE(SUM(credits), 0) AS credits, COUNT(*) AS n FROM usage_ledger WHERE account_id = ? AND mode = ? AND created_at >= ?',
        )
        .get(accountId, mode, periodStart.getTime()) as { chars: number; credits: number; n: number };
      const d = this.c
        .sql('SELECT COUNT(*) AS n FROM usage_ledger WHERE account_id = ? AND mode = ? AND created_at >= ?')
        .get(accountId, mode, dayStart.getTime()) as { n: number };
      return { charactersUsed: p.chars, creditsUsed: p.credits, requestsThisMonth: p.n, requestsToday: d.n };
    });
    return read.deferred();
  }

  async dailyUsage(accountId: string, mode: KeyMode, from: Date): Promise<DailyUsage[]> {
    const rows = this.c
      .sql(
        `SELECT strftime('%Y-%m-%d', created_at / 1000, 'unixepoch') AS day,
                CASE WHEN kind IN ('tts', 'tts_stream') THEN 'tts' ELSE 'stt' END AS k,
                COUNT(*) AS requests, COALESCE(SUM(credits), 0) AS credits
         FROM usage_ledger WHERE account_id = ? AND mode = ? AND created_at >= ?
         GROUP BY day, k ORDER BY day, k`,
      )
      .all(accountId, mode, from.getTime()) as Array<{ day: string; k: 'tts' | 'stt'; requests: number; credits: number }>;
    return rows.map((r) => ({ day: r.day, kind: r.k, requests: r.requests, credits: r.credits }));
  }

  async listUsage(accountId: string, mode: KeyMode, limit: number): Promise<UsageRecord[]> {
    const rows = this.c
      .sql('SELECT * FROM usage_ledger WHERE account_id = ? AND mode = ? ORDER BY created_at DESC, id DESC LIMIT ?')
      .all(accountId, mode, limit) as LedgerRow[];
    return rows.map(usageFromRow);
  }
}
