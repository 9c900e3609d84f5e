// The monthly character quota and the balance check of a credit hold on PostgreSQL, run inside the
// Store's billing transactions (src/storage/postgres/postgres-store.ts) after the account row is locked.

import type { KeyMode } from '../../domain/accounts.js';
import type { HoldResult } from '../store.js';
import type { Q } from './database.js';

/**
 * Characters used in the ledger since periodStart plus those held by running requests, under the
 * account lock. The ledger part comes from quota_counters, summed from the ledger only when the
 * period differs from the counter's (once per period, or when nodes disagree at a rollover).
 */
export async function charactersCommitted(q: Q, accountId: string, mode: KeyMode, periodStart: Date): Promise<number> {
  const counter = await q.query<{ period_start: Date; characters: number }>(
    'SELECT period_start, characters FROM quota_counters WHERE account_id = $1 AND mode = $2',
    [accountId, mode],
  );
  let used: number;
  if (counter.rows[0] && counter.rows[0].period_start.getTime() === periodStart.getTime()) {
    used = Number(counter.rows[0].characters);
  } else {
    const sum = await q.query<{ n: number }>(
      `INSERT INTO quota_counters (account_id, mode, period_start, characters)
       SELECT $1, $2, $3, COALESCE(SUM(characters), 0) FROM usage_ledger WHERE account_id = $1 AND mode = $2 AND created_at >= $3
       ON CONFLICT (account_id, mode) DO UPDATE SET period_start = excluded.period_start, characters = excluded.characters
       RETURNING characters AS n`,
      [accountId, mode, periodStart],
    );
    used = Number(sum.rows[0]!.n);
  }
  const held = await q.query<{ n: number }>(
    'SELECT COALESCE(SUM(characters), 0)::bigint AS n FROM credit_holds WHERE account_id = $1 AND mode = $2',
    [accountId, mode],
  );
  return used + Number(held.rows[0]!.n);
}

/** Whether a hold of `credits` and `characters` fits the locked `balance` and the period's character limit. */
export async function holdVerdict(
  q: Q,
  h: {
    accountId: string;
    mode: KeyMode;
    balance: number;
    credits: number;
    characters: number;
    characterLimit: number | null;
    periodStart: Date;
  },
): Promise<HoldResult> {
  if (h.balance < h.credits) return { ok: false, reason: 'credits', balance: h.balance };
  if (h.characterLimit !== null && h.characters > 0) {
    const committed = await charactersCommitted(q, h.accountId, h.mode, h.periodStart);
    if (committed + h.characters > h.characterLimit) return { ok: false, reason: 'quota', charactersUsed: committed };
  }
  return { ok: true, balance: h.balance - h.credits };
}
