// Credit holds on PostgreSQL (the billing half of the Store; src/storage/store.ts says what a hold
// is). Billing transactions lock the account row (SELECT ... FOR UPDATE) before reading the balance
// and the quota, so concurrent holds from any number of nodes are serialized per account and can
// never overspend.

import type { KeyMode, UsageRecord } from '../../domain/accounts.js';
import { balanceColumn, type HoldRow } from '../rows.js';
import { settlementCharge } from '../settlement.js';
import type { HoldRequest, HoldResult, SettleResult } from '../store.js';
import type { PgConnection } from './connection.js';
import type { Q } from './database.js';
import { holdVerdict } from './quota.js';

export class PostgresBilling {
  constructor(private readonly db: PgConnection) {}

  /** The verdict on holding `credits` and `characters` more, under the account's row lock. */
  private async check(
    q: Q,
    accountId: string,
    mode: KeyMode,
    credits: number,
    characters: number,
    characterLimit: number | null,
    periodStart: Date,
  ): Promise<HoldResult> {
    // The row lock serializes every billing transaction of this account across nodes.
    const balance = await this.db.balance(q, accountId, mode, true);
    return holdVerdict(q, { accountId, mode, balance, credits, characters, characterLimit, periodStart });
  }

  async holdCredits(req: HoldRequest): Promise<HoldResult> {
    const col = balanceColumn(req.mode);
    if (req.characterLimit === null || req.characters === 0) {
      // No quota to read: one conditional statement. A concurrent debit blocks on the row and then
      // re-checks the WHERE against the row it committed (READ COMMITTED), so it cannot overspend;
      // the row lock is held for one statement instead of a five-round-trip transaction.
      const { rows } = await this.db.run((q) =>
        q.query<{ b: number }>(
          `WITH debit AS (UPDATE accounts SET ${col} = ${col} - $3 WHERE id = $1 AND ${col} >= $3 RETURNING ${col} AS b),
                hold AS (INSERT INTO credit_holds (id, account_id, mode, credits, characters, created_at, expires_at)
                         SELECT $4::text, $1::text, $2::text, $3::bigint, $5::bigint, now(), $6::timestamptz FROM debit)
           SELECT b FROM debit`,
          [req.accountId, req.mode, req.credits, req.holdId, req.characters, req.expiresAt],
        ),
      );
      if (rows[0]) return { ok: true, balance: rows[0].b };
      return { ok: false, reason: 'credits', balance: await this.db.balance(this.db.pool, req.accountId, req.mode, false) };
    }
    return this.db.tx(async (q) => {
      const res = await this.check(q, req.accountId, req.mode, req.credits, req.characters, req.characterLimit, req.periodStart);
      if (!res.ok) return res;
      await q.query(`UPDATE accounts SET ${col} = ${col} - $1 WHERE id = $2`, [req.credits, req.accountId]);
      await q.query(
        'INSERT INTO credit_holds (id, account_id, mode, credits, characters, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, now(), $6)',
        [req.holdId, req.accountId, req.mode, req.credits, req.characters, req.expiresAt],
      );
      return res;
    });
  }

  /**
   * Locks the hold's account row, then the hold. Every billing transaction locks account before
   * hold, so they never deadlock, and a hold read after the account lock cannot be settled or
   * released under our feet. Returns null when the hold no longer exists.
   */
  private async lockHold(q: Q, holdId: string): Promise<HoldRow | null> {
    const owner = await q.query<{ account_id: string; mode: KeyMode }>('SELECT account_id, mode FROM credit_holds WHERE id = $1', [holdId]);
    if (!owner.rows[0]) return null;
    await this.db.balance(q, owner.rows[0].account_id, owner.rows[0].mode, true);
    const { rows } = await q.query<HoldRow>('SELECT * FROM credit_holds WHERE id = $1 FOR UPDATE', [holdId]);
    return rows[0] ?? null;
  }

  async extendHold(
    holdId: string,
    extraCredits: number,
    extraCharacters: number,
    characterLimit: number | null,
    periodStart: Date,
    expiresAt: Date,
  ): Promise<HoldResult> {
    return this.db.tx(async (q) => {
      const hold = await this.lockHold(q, holdId);
      if (!hold) throw new Error(`no hold ${holdId}`);
      const res = await this.check(q, hold.account_id, hold.mode, extraCredits, extraCharacters, characterLimit, periodStart);
      if (!res.ok) return res;
      const col = balanceColumn(hold.mode);
      await q.query(`UPDATE accounts SET ${col} = ${col} - $1 WHERE id = $2`, [extraCredits, hold.account_id]);
      await q.query('UPDATE credit_holds SET credits = credits + $1, characters = characters + $2, expires_at = $3 WHERE id = $4', [
        extraCredits,
        extraCharacters,
        expiresAt,
        holdId,
      ]);
      return res;
    });
  }

  async settleHold(holdId: string, usage: UsageRecord): Promise<SettleResult> {
    return this.db.tx(async (q) => {
      const col = balanceColumn(usage.mode);
      // The account row first, as in every billing transaction (one lock order, no deadlocks).
      const balance = await this.db.balance(q, usage.accountId, usage.mode, true);
      const { rows } = await q.query<HoldRow>('DELETE FROM credit_holds WHERE id = $1 RETURNING *', [holdId]);
      if (rows[0] && (rows[0].account_id !== usage.accountId || rows[0].mode !== usage.mode))
        throw new Error(`hold ${holdId} belongs to another account or mode`);
      if (!rows[0] && (await q.query('SELECT 1 FROM usage_ledger WHERE hold_id = $1', [holdId])).rowCount) return { balance };
      const held = rows[0]?.credits ?? 0;
      const charge = settlementCharge(held, balance, usage.credits);
      const inserted = await q.query(
        `INSERT INTO usage_ledger (request_id, hold_id, account_id, key_id, mode, kind, model, units, characters, credits, created_at)
         VALUES ($1, $11, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
        [
          usage.requestId,
          usage.accountId,
          usage.keyId,
          usage.mode,
          usage.kind,
          usage.model,
          usage.units,
          usage.characters,
          charge,
          usage.createdAt,
          holdId,
        ],
      );
      if (inserted.rowCount === 1 && usage.characters > 0) {
        await q.query('UPDATE quota_counters SET characters = characters + $1 WHERE account_id = $2 AND mode = $3 AND period_start <= $4', [
          usage.characters,
          usage.accountId,
          usage.mode,
          usage.createdAt,
        ]);
      }
      // A request id already in the ledger was charged before: this hold goes back whole.
      const refund = held - (inserted.rowCount === 1 ? charge : 0);
      if (refund === 0) return { balance };
      const res = await q.query<{ b: number }>(`UPDATE accounts SET ${col} = ${col} + $1 WHERE id = $2 RETURNING ${col} AS b`, [
        refund,
        usage.accountId,
      ]);
      return { balance: res.rows[0]!.b };
    });
  }

  async releaseHold(holdId: string): Promise<void> {
    await this.db.tx(async (q) => this.release(q, holdId));
  }

  private async release(q: Q, holdId: string): Promise<boolean> {
    const hold = await this.lockHold(q, holdId);
    if (!hold) return false;
    await q.query('DELETE FROM credit_holds WHERE id = $1', [holdId]);
    const col = balanceColumn(hold.mode);
    await q.query(`UPDATE accounts SET ${col} = ${col} + $1 WHERE id = $2`, [hold.credits, hold.account_id]);
    return true;
  }

  async releaseExpiredHolds(now: Date): Promise<number> {
    const { rows } = await this.db.run((q) => q.query<{ id: string }>('SELECT id FROM credit_holds WHERE expires_at <= $1', [now]));
    let released = 0;
    // One short transaction per hold: a sweep never holds many account locks at once.
    for (const r of rows) if (await this.db.tx((q) => this.release(q, r.id))) released++;
    return released;
  }
}
