// Reading the usage ledger on PostgreSQL (the dashboard's and GET /v1/usage's figures).

import type { DailyUsage, KeyMode, UsageRecord, UsageSummary } from '../../domain/accounts.js';
import { usageFromRow, type LedgerRow } from '../rows.js';
import type { PgConnection } from './connection.js';

export class PostgresUsage {
  constructor(private readonly db: PgConnection) {}

  async usageSummary(accountId: string, mode: KeyMode, periodStart: Date, dayStart: Date): Promise<UsageSummary> {
    const { rows } = await this.db.run((q) =>
      q.query<{ chars: number; credits: number; n: number; today: number }>(
        `SELECT COALESCE(SUM(characters), 0)::bigint AS chars, COALESCE(SUM(credits), 0)::bigint AS credits, COUNT(*)::int AS n,
                COUNT(*) FILTER (WHERE created_at >= $4)::int AS today
         FROM usage_ledger WHERE account_id = $1 AND mode = $2 AND created_at >= $3`,
        [accountId, mode, periodStart, dayStart],
      ),
    );
    const r = rows[0]!;
    // Today may start before the period does (a period that began this morning).
    let today = r.today;
    if (dayStart < periodStart) {
      const t = await this.db.run((q) =>
        q.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM usage_ledger WHERE account_id = $1 AND mode = $2 AND created_at >= $3', [
          accountId,
          mode,
          dayStart,
        ]),
      );
      today = t.rows[0]!.n;
    }
    return { charactersUsed: Number(r.chars), creditsUsed: Number(r.credits), requestsThisMonth: r.n, requestsToday: today };
  }

  async dailyUsage(accountId: string, mode: KeyMode, from: Date): Promise<DailyUsage[]> {
    const { rows } = await this.db.run((q) =>
      q.query<{ day: string; k: 'tts' | 'stt'; requests: number; credits: number }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                CASE WHEN kind IN ('tts', 'tts_stream') THEN 'tts' ELSE 'stt' END AS k,
                COUNT(*)::int AS requests, COALESCE(SUM(credits), 0)::bigint AS credits
         FROM usage_ledger WHERE account_id = $1 AND mode = $2 AND created_at >= $3
         GROUP BY 1, 2 ORDER BY 1, 2`,
        [accountId, mode, from],
      ),
    );
    return rows.map((r) => ({ day: r.day, kind: r.k, requests: r.requests, credits: Number(r.credits) }));
  }

  async listUsage(accountId: string, mode: KeyMode, limit: number): Promise<UsageRecord[]> {
    const { rows } = await this.db.run((q) =>
      q.query<LedgerRow>('SELECT * FROM usage_ledger WHERE account_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3', [
        accountId,
        mode,
        limit,
      ]),
    );
    return rows.map(usageFromRow);
  }
}
