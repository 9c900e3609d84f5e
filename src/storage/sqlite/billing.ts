// Credit holds on SQLite (the billing half of the Store; src/storage/store.ts says what a hold is).
// Every billing transaction is BEGIN IMMEDIATE: it takes the write lock before it reads the balance,
// so no other connection, in this process or another, reads the same balance meanwhile.

import type { KeyMode, UsageRecord } from '../../domain/accounts.js';
import { balanceColumn, type HoldRow } from '../rows.js';
import { settlementCharge } from '../settlement.js';
import type { HoldRequest, HoldResult, SettleResult } from '../store.js';
import type { SqliteDatabase } from './database.js';

/** The balance of a mode (inside a billing transaction, under its write lock). */
export function balanceOf(c: SqliteDatabase, accountId: string, mode: KeyMode): number {
  const row = c.sql(`SELECT ${balanceColumn(mode)} AS b FROM accounts WHERE id = ?`).get(accountId) as { b: number } | undefined;
  return row ? row.b : 0;
}

export class SqliteBilling {
  constructor(private readonly c: SqliteDatabase) {}

  /**
   * Characters used in the ledger since periodStart plus those held by running requests. The ledger
   * part comes from quota_counters, summed from the ledger only when the period differs from the
   * counter's (once per period, or when nodes disagree about the period at a rollover).
   */
  private charactersCommitted(accountId: string, mode: KeyMode, periodStart: Date): number {
    const start = periodStart.getTime();
    const counter = this.c
      .sql('SELECT period_start, characters FROM quota_counters WHERE account_id = ? AND mode = ?')
      .get(accountId, mode) as { period_start: number; characters: number } | undefined;
    let used: number;
    if (counter && counter.period_start === start) {
      used = counter.characters;
    } else {
      used = (
        this.c
          .sql('SELECT COALESCE(SUM(characters), 0) AS n FROM usage_ledger WHERE account_id = ? AND mode = ? AND created_at >= ?')
          .get(accountId, mode, start) as { n: number }
      ).n;
      this.c
        .sql(
          'INSERT INTO quota_counters (account_id, mode, period_start, characters) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, mode) DO UPDATE SET period_start = excluded.period_start, characters = excluded.characters',
        )
        .run(accountId, mode, start, used);
    }
    const held = this.c
      .sql('SELECT COALESCE(SUM(characters), 0) AS n FROM credit_holds WHERE account_id = ? AND mode = ?')
      .get(accountId, mode) as { n: number };
    return used + held.n;
  }

  private check(
    accountId: string,
    mode: KeyMode,
    credits: number,
    characters: number,
    characterLimit: number | null,
    periodStart: Date,
  ): HoldResult {
    const balance = balanceOf(this.c, accountId, mode);
    if (balance < credits) return { ok: false, reason: 'credits', balance };
    if (characterLimit !== null && characters > 0) {
      const committed = this.charactersCommitted(accountId, mode, periodStart);
      if (committed + characters > characterLimit) return { ok: false, reason: 'quota', charactersUsed: committed };
    }
    return { ok: true, balance: balance - credits };
  }

  async holdCredits(req: HoldRequest): Promise<HoldResult> {
    const col = balanceColumn(req.mode);
    const tx = this.c.db.transaction((): HoldResult => {
      const res = this.check(req.accountId, req.mode, req.credits, req.characters, req.characterLimit, req.periodStart);
      if (!res.ok) return res;
      this.c.sql(`UPDATE accounts SET ${col} = ${col} - ? WHERE id = ?`).run(req.credits, req.accountId);
      this.c
        .sql('INSERT INTO credit_holds (id, account_id, mode, credits, characters, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(req.holdId, req.accountId, req.mode, req.credits, req.characters, Date.now(), req.expiresAt.getTime());
      return res;
    });
    return tx.immediate();
  }

  async extendHold(
    holdId: string,
    extraCredits: number,
    extraCharacters: number,
    characterLimit: number | null,
    periodStart: Date,
    expiresAt: Date,
  ): Promise<HoldResult> {
    const tx = this.c.db.transaction((): HoldResult => {
      const hold = this.c.sql('SELECT * FROM credit_holds WHERE id = ?').get(holdId) as HoldRow | undefined;
      if (!hold) throw new Error(`no hold ${holdId}`);
      const res = this.check(hold.account_id, hold.mode, extraCredits, extraCharacters, characterLimit, periodStart);
      if (!res.ok) return res;
      const col = balanceColumn(hold.mode);
      this.c.sql(`UPDATE accounts SET ${col} = ${col} - ? WHERE id = ?`).run(extraCredits, hold.account_id);
      this.c
        .sql('UPDATE credit_holds SET credits = credits + ?, characters = characters + ?, expires_at = ? WHERE id = ?')
        .run(extraCredits, extraCharacters, expiresAt.getTime(), holdId);
      return res;
    });
    return tx.immediate();
  }

  async settleHold(holdId: string, usage: UsageRecord): Promise<SettleResult> {
    const col = balanceColumn(usage.mode);
    const tx = this.c.db.transaction((): SettleResult => {
      const hold = this.c.sql('SELECT * FROM credit_holds WHERE id = ?').get(holdId) as HoldRow | undefined;
      if (hold && (hold.account_id !== usage.accountId || hold.mode !== usage.mode))
        throw new Error(`hold ${holdId} belongs to another account or mode`);
      const balance = balanceOf(this.c, usage.accountId, usage.mode);
      if (!hold && this.c.sql('SELECT 1 FROM usage_ledger WHERE hold_id = ?').get(holdId)) return { balance };
      const held = hold?.credits ?? 0;
      const charge = settlementCharge(held, balance, usage.credits);
      if (hold) this.c.sql('DELETE FROM credit_holds WHERE id = ?').run(holdId);
      const inserted = this.c
        .sql(
          'INSERT INTO usage_ledger (request_id, hold_id, account_id, key_id, mode, kind, model, units, characters, credits, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
        )
        .run(
          usage.requestId,
          holdId,
          usage.accountId,
          usage.keyId,
          usage.mode,
          usage.kind,
          usage.model,
          usage.units,
          usage.characters,
          charge,
          usage.createdAt.getTime(),
        );
      if (inserted.changes === 1 && usage.characters > 0) {
        this.c
          .sql('UPDATE quota_counters SET characters = characters + ? WHERE account_id = ? AND mode = ? AND period_start <= ?')
          .run(usage.characters, usage.accountId, usage.mode, usage.createdAt.getTime());
      }
      // A request id already in the ledger was charged before: this hold goes back whole.
      const refund = held - (inserted.changes === 1 ? charge : 0);
      if (refund === 0) return { balance };
      this.c.sql(`UPDATE accounts SET ${col} = ${col} + ? WHERE id = ?`).run(refund, usage.accountId);
      return { balance: balance + refund };
    });
    return tx.immediate();
  }

  async releaseHold(holdId: string): Promise<void> {
    const tx = this.c.db.transaction(() => this.release(holdId));
    tx.immediate();
  }

  private release(holdId: string): void {
    const hold = this.c.sql('SELECT * FROM credit_holds WHERE id = ?').get(holdId) as HoldRow | undefined;
    if (!hold) return;
    const col = balanceColumn(hold.mode);
    this.c.sql(`UPDATE accounts SET ${col} = ${col} + ? WHERE id = ?`).run(hold.credits, hold.account_id);
    this.c.sql('DELETE FROM credit_holds WHERE id = ?').run(holdId);
  }

  async releaseExpiredHolds(now: Date): Promise<number> {
    const tx = this.c.db.transaction(() => {
      const ids = (this.c.sql('SELECT id FROM credit_holds WHERE expires_at <= ?').all(now.getTime()) as Array<{ id: string }>).map(
        (r) => r.id,
      );
      for (const id of ids) this.release(id);
      return ids.length;
    });
    return tx.immediate();
  }
}
