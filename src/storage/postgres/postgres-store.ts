// PostgresStore: the store for many nodes, on node-postgres (pg.Pool).
//
// Billing transactions lock the account row (SELECT ... FOR UPDATE) before reading the balance and
// the quota, so concurrent holds from any number of nodes are serialized per account and can never
// overspend. Connection failures surface as StoreUnavailableError (-> 503 CREDIT_CHECK_FAILED); the
// pool reconnects by itself when the database returns.

import pg from 'pg';
import type { Account, ApiKeyRecord, ApiKeyWithUsage, DailyUsage, Feature, KeyMode, Plan, StoredKeyState, UsageRecord, UsageSummary } from '../../domain/accounts.js';
import { newId } from '../ids.js';
import { accountFromRow, balanceColumn, keyFromRow, patchAccountSettings, sessionFromRow, usageFromRow, type AccountRow, type HoldRow, type KeyRow, type LedgerRow, type SessionRow } from '../rows.js';
import { StoreUnavailableError, type DashboardSession, type HoldRequest, type HoldResult, type NewAccount, type NewApiKey, type SettleResult, type Store } from '../store.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { settlementCharge } from '../settlement.js';

// BIGINT and NUMERIC arrive as strings by default; the values here fit comfortably in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
const MIGRATION_LOCK = 7_734_221;

function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e?.code && CONNECTION_CODES.has(e.code)) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Query read timeout/i.test(e?.message ?? '');
}

type Q = Pick<pg.PoolClient, 'query'>;

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(connectionString: string, opts: { max?: number; connectTimeoutMs?: number } = {}) {
    this.pool = new pg.Pool({
      connectionString,
      max: opts.max ?? 10,
      // A silent database (network partition) must become 503 soon, not hang the request.
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000,
      idleTimeoutMillis: 30_000,
      query_timeout: 15_000,
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
  }

  private async run<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    try {
      return await fn(this.pool);
    } catch (err) {
      if (isConnectionError(err)) throw new StoreUnavailableError(`PostgreSQL unreachable: ${(err as Error).message}`, { cause: err });
      throw err;
    }
  }

  private async tx<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw new StoreUnavailableError(`PostgreSQL unreachable: ${(err as Error).message}`, { cause: err });
    }
    let broken = false;
    const onError = () => { broken = true; };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => { broken = true; });
      if (isConnectionError(err)) {
        broken = true;
        throw new StoreUnavailableError(`PostgreSQL unreachable: ${(err as Error).message}`, { cause: err });
      }
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async migrate(): Promise<void> {
    await this.tx(async (q) => {
      // Two nodes starting at once: the second waits here, then finds nothing left to apply.
      await q.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await q.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
      const done = new Set((await q.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const m of POSTGRES_MIGRATIONS) {
        if (done.has(m.version)) continue;
        await q.query(m.sql);
        await q.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
      }
    });
  }

  async ping(): Promise<void> {
    await this.run((q) => q.query('SELECT 1'));
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  // ------------------------------------------------------------------ accounts

  async createAccount(input: NewAccount): Promise<Account> {
    const id = newId('acc');
    const { rows } = await this.run((q) =>
      q.query<AccountRow>(
        `INSERT INTO accounts (id, name, plan, email, password_hash, credits, test_credits, features, period_anchor, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, '{}', now(), now()) RETURNING *`,
        [id, input.name, input.plan, input.email?.toLowerCase() ?? null, input.passwordHash ?? null, input.credits ?? 0, input.testCredits ?? 0],
      ),
    );
    return accountFromRow(rows[0]!);
  }

  async getAccount(id: string): Promise<Account | null> {
    const { rows } = await this.run((q) => q.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]));
    return rows[0] ? accountFromRow(rows[0]) : null;
  }

  async findAccountByEmail(email: string): Promise<(Account & { passwordHash: string | null }) | null> {
    const { rows } = await this.run((q) => q.query<AccountRow>('SELECT * FROM accounts WHERE email = $1', [email.toLowerCase()]));
    return rows[0] ? { ...accountFromRow(rows[0]), passwordHash: rows[0].password_hash ?? null } : null;
  }

  async listAccounts(): Promise<Account[]> {
    const { rows } = await this.run((q) => q.query<AccountRow>('SELECT * FROM accounts ORDER BY created_at, seq'));
    return rows.map(accountFromRow);
  }

  async countAccounts(): Promise<number> {
    const { rows } = await this.run((q) => q.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM accounts'));
    return rows[0]!.n;
  }

  async setPlan(accountId: string, plan: Plan): Promise<void> {
    await this.run((q) => q.query('UPDATE accounts SET plan = $1 WHERE id = $2', [plan, accountId]));
  }

  async setFeature(accountId: string, feature: Feature, enabled: boolean): Promise<void> {
    await this.patchSettings(accountId, { [feature]: enabled });
  }

  async setZeroRetention(accountId: string, on: boolean): Promise<void> {
    await this.patchSettings(accountId, { zero_retention: on });
  }

  private async patchSettings(accountId: string, patch: Record<string, boolean>): Promise<void> {
    await this.tx(async (q) => {
      const { rows } = await q.query<{ features: unknown }>('SELECT features FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      if (!rows[0]) return;
      await q.query('UPDATE accounts SET features = $1 WHERE id = $2', [patchAccountSettings(rows[0].features, patch), accountId]);
    });
  }

  async setPassword(accountId: string, email: string, passwordHash: string): Promise<void> {
    await this.run((q) => q.query('UPDATE accounts SET email = $1, password_hash = $2 WHERE id = $3', [email.toLowerCase(), passwordHash, accountId]));
  }

  async addCredits(accountId: string, mode: KeyMode, amount: number): Promise<number> {
    const col = balanceColumn(mode);
    const { rows } = await this.run((q) => q.query<{ b: number }>(`UPDATE accounts SET ${col} = GREATEST(0, ${col} + $1) WHERE id = $2 RETURNING ${col} AS b`, [amount, accountId]));
    return rows[0]?.b ?? 0;
  }

  async getBalance(accountId: string, mode: KeyMode): Promise<number> {
    return this.balance(this.pool, accountId, mode, false);
  }

  private async balance(q: Q, accountId: string, mode: KeyMode, lock: boolean): Promise<number> {
    const run = () => q.query<{ b: number }>(`SELECT ${balanceColumn(mode)} AS b FROM accounts WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [accountId]);
    const { rows } = q === this.pool ? await this.run(run) : await run();
    return rows[0]?.b ?? 0;
  }

  // ------------------------------------------------------------------ keys

  async createKey(input: NewApiKey): Promise<ApiKeyRecord> {
    const id = newId('key');
    const { rows } = await this.run((q) =>
      q.query<KeyRow>(
        `INSERT INTO api_keys (id, account_id, name, mode, hash, prefix, state, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, now()) RETURNING *`,
        [id, input.accountId, input.name, input.mode, input.hash, input.prefix, input.expiresAt],
      ),
    );
    return keyFromRow(rows[0]!);
  }

  async findKeyByHash(hash: string): Promise<{ key: ApiKeyRecord; account: Account } | null> {
    const { rows } = await this.run((q) =>
      q.query<KeyRow & { a: AccountRow }>(
        `SELECT k.*, row_to_json(a.*) AS a FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`,
        [hash],
      ),
    );
    const r = rows[0];
    if (!r) return null;
    return { key: keyFromRow(r), account: accountFromRow(r.a) };
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.run((q) => q.query<KeyRow>('SELECT * FROM api_keys WHERE id = $1', [keyId]));
    return rows[0] ? keyFromRow(rows[0]) : null;
  }

  async listKeys(accountId: string): Promise<ApiKeyWithUsage[]> {
    const { rows } = await this.run((q) =>
      q.query<KeyRow & { requests: number; credits_used: number }>(
        `SELECT k.*, COALESCE(u.requests, 0)::int AS requests, COALESCE(u.credits_used, 0)::bigint AS credits_used
         FROM api_keys k LEFT JOIN (SELECT key_id, COUNT(*) AS requests, SUM(credits) AS credits_used FROM usage_ledger WHERE account_id = $1 GROUP BY key_id) u ON u.key_id = k.id
         WHERE k.account_id = $1 ORDER BY k.created_at, k.id`,
        [accountId],
      ),
    );
    return rows.map((r) => ({ ...keyFromRow(r), requests: Number(r.requests), creditsUsed: Number(r.credits_used) }));
  }

  async setKeyState(keyId: string, state: StoredKeyState): Promise<boolean> {
    const res = await this.run((q) => q.query("UPDATE api_keys SET state = $1 WHERE id = $2 AND state <> 'revoked'", [state, keyId]));
    return res.rowCount === 1;
  }

  async touchKey(keyId: string, at: Date): Promise<void> {
    await this.run((q) => q.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [at, keyId]));
  }

  // ------------------------------------------------------------------ billing

  /**
   * Characters used in the ledger since periodStart plus those held by running requests, under the
   * account lock. The ledger part comes from quota_counters, summed from the ledger only when the
   * period differs from the counter's (once per period, or when nodes disagree at a rollover).
   */
  private async charactersCommitted(q: Q, accountId: string, mode: KeyMode, periodStart: Date): Promise<number> {
    const counter = await q.query<{ period_start: Date; characters: number }>('SELECT period_start, characters FROM quota_counters WHERE account_id = $1 AND mode = $2', [accountId, mode]);
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
    const held = await q.query<{ n: number }>('SELECT COALESCE(SUM(characters), 0)::bigint AS n FROM credit_holds WHERE account_id = $1 AND mode = $2', [accountId, mode]);
    return used + Number(held.rows[0]!.n);
  }

  private async check(q: Q, accountId: string, mode: KeyMode, credits: number, characters: number, characterLimit: number | null, periodStart: Date): Promise<HoldResult> {
    // The row lock serializes every billing transaction of this account across nodes.
    const balance = await this.balance(q, accountId, mode, true);
    if (balance < credits) return { ok: false, reason: 'credits', balance };
    if (characterLimit !== null && characters > 0) {
      const committed = await this.charactersCommitted(q, accountId, mode, periodStart);
      if (committed + characters > characterLimit) return { ok: false, reason: 'quota', charactersUsed: committed };
    }
    return { ok: true, balance: balance - credits };
  }

  async holdCredits(req: HoldRequest): Promise<HoldResult> {
    const col = balanceColumn(req.mode);
    if (req.characterLimit === null || req.characters === 0) {
      // No quota to read: one conditional statement. A concurrent debit blocks on the row and then
      // re-checks the WHERE against the row it committed (READ COMMITTED), so it cannot overspend;
      // the row lock is held for one statement instead of a five-round-trip transaction.
      const { rows } = await this.run((q) =>
        q.query<{ b: number }>(
          `WITH debit AS (UPDATE accounts SET ${col} = ${col} - $3 WHERE id = $1 AND ${col} >= $3 RETURNING ${col} AS b),
                hold AS (INSERT INTO credit_holds (id, account_id, mode, credits, characters, created_at, expires_at)
                         SELECT $4::text, $1::text, $2::text, $3::bigint, $5::bigint, now(), $6::timestamptz FROM debit)
           SELECT b FROM debit`,
          [req.accountId, req.mode, req.credits, req.holdId, req.characters, req.expiresAt],
        ),
      );
      if (rows[0]) return { ok: true, balance: rows[0].b };
      return { ok: false, reason: 'credits', balance: await this.getBalance(req.accountId, req.mode) };
    }
    return this.tx(async (q) => {
      const res = await this.check(q, req.accountId, req.mode, req.credits, req.characters, req.characterLimit, req.periodStart);
      if (!res.ok) return res;
      await q.query(`UPDATE accounts SET ${col} = ${col} - $1 WHERE id = $2`, [req.credits, req.accountId]);
      await q.query('INSERT INTO credit_holds (id, account_id, mode, credits, characters, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, now(), $6)', [
        req.holdId, req.accountId, req.mode, req.credits, req.characters, req.expiresAt,
      ]);
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
    await this.balance(q, owner.rows[0].account_id, owner.rows[0].mode, true);
    const { rows } = await q.query<HoldRow>('SELECT * FROM credit_holds WHERE id = $1 FOR UPDATE', [holdId]);
    return rows[0] ?? null;
  }

  async extendHold(holdId: string, extraCredits: number, extraCharacters: number, characterLimit: number | null, periodStart: Date, expiresAt: Date): Promise<HoldResult> {
    return this.tx(async (q) => {
      const hold = await this.lockHold(q, holdId);
      if (!hold) throw new Error(`no hold ${holdId}`);
      const res = await this.check(q, hold.account_id, hold.mode, extraCredits, extraCharacters, characterLimit, periodStart);
      if (!res.ok) return res;
      const col = balanceColumn(hold.mode);
      await q.query(`UPDATE accounts SET ${col} = ${col} - $1 WHERE id = $2`, [extraCredits, hold.account_id]);
      await q.query('UPDATE credit_holds SET credits = credits + $1, characters = characters + $2, expires_at = $3 WHERE id = $4', [extraCredits, extraCharacters, expiresAt, holdId]);
      return res;
    });
  }

  async settleHold(holdId: string, usage: UsageRecord): Promise<SettleResult> {
    return this.tx(async (q) => {
      const col = balanceColumn(usage.mode);
      // The account row first, as in every billing transaction (one lock order, no deadlocks).
      const balance = await this.balance(q, usage.accountId, usage.mode, true);
      const { rows } = await q.query<HoldRow>('DELETE FROM credit_holds WHERE id = $1 RETURNING *', [holdId]);
      if (rows[0] && (rows[0].account_id !== usage.accountId || rows[0].mode !== usage.mode)) throw new Error(`hold ${holdId} belongs to another account or mode`);
      if (!rows[0] && (await q.query('SELECT 1 FROM usage_ledger WHERE hold_id = $1', [holdId])).rowCount) return { balance };
      const held = rows[0]?.credits ?? 0;
      const charge = settlementCharge(held, balance, usage.credits);
      const inserted = await q.query(
        `INSERT INTO usage_ledger (request_id, hold_id, account_id, key_id, mode, kind, model, units, characters, credits, created_at)
         VALUES ($1, $11, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
        [usage.requestId, usage.accountId, usage.keyId, usage.mode, usage.kind, usage.model, usage.units, usage.characters, charge, usage.createdAt, holdId],
      );
      if (inserted.rowCount === 1 && usage.characters > 0) {
        await q.query('UPDATE quota_counters SET characters = characters + $1 WHERE account_id = $2 AND mode = $3 AND period_start <= $4', [usage.characters, usage.accountId, usage.mode, usage.createdAt]);
      }
      // A request id already in the ledger was charged before: this hold goes back whole.
      const refund = held - (inserted.rowCount === 1 ? charge : 0);
      if (refund === 0) return { balance };
      const res = await q.query<{ b: number }>(`UPDATE accounts SET ${col} = ${col} + $1 WHERE id = $2 RETURNING ${col} AS b`, [refund, usage.accountId]);
      return { balance: res.rows[0]!.b };
    });
  }

  async releaseHold(holdId: string): Promise<void> {
    await this.tx(async (q) => this.release(q, holdId));
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
    const { rows } = await this.run((q) => q.query<{ id: string }>('SELECT id FROM credit_holds WHERE expires_at <= $1', [now]));
    let released = 0;
    // One short transaction per hold: a sweep never holds many account locks at once.
    for (const r of rows) if (await this.tx((q) => this.release(q, r.id))) released++;
    return released;
  }

  // ------------------------------------------------------------------ usage

  async usageSummary(accountId: string, mode: KeyMode, periodStart: Date, dayStart: Date): Promise<UsageSummary> {
    const { rows } = await this.run((q) =>
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
      const t = await this.run((q) => q.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM usage_ledger WHERE account_id = $1 AND mode = $2 AND created_at >= $3', [accountId, mode, dayStart]));
      today = t.rows[0]!.n;
    }
    return { charactersUsed: Number(r.chars), creditsUsed: Number(r.credits), requestsThisMonth: r.n, requestsToday: today };
  }

  async dailyUsage(accountId: string, mode: KeyMode, from: Date): Promise<DailyUsage[]> {
    const { rows } = await this.run((q) =>
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
    const { rows } = await this.run((q) => q.query<LedgerRow>('SELECT * FROM usage_ledger WHERE account_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3', [accountId, mode, limit]));
    return rows.map(usageFromRow);
  }

  // ------------------------------------------------------------------ webhook secret

  async getWebhookSecret(accountId: string, fresh: string): Promise<string | null> {
    // One statement: the row lock makes a concurrent first call wait and then keep the winner's secret.
    const { rows } = await this.run((q) =>
      q.query<{ webhook_secret: string }>('UPDATE accounts SET webhook_secret = COALESCE(webhook_secret, $1) WHERE id = $2 RETURNING webhook_secret', [fresh, accountId]),
    );
    return rows[0]?.webhook_secret ?? null;
  }

  async rotateWebhookSecret(accountId: string, fresh: string): Promise<boolean> {
    const res = await this.run((q) => q.query('UPDATE accounts SET webhook_secret = $1 WHERE id = $2', [fresh, accountId]));
    return res.rowCount === 1;
  }

  // ------------------------------------------------------------------ dashboard sessions

  async createSession(x: DashboardSession): Promise<void> {
    await this.run((q) =>
      q.query('INSERT INTO dashboard_sessions (id_hash, account_id, csrf_token, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        x.idHash, x.accountId, x.csrfToken, x.createdAt, x.lastSeenAt, x.expiresAt,
      ]),
    );
  }

  async getSession(idHash: string, now: Date): Promise<DashboardSession | null> {
    const { rows } = await this.run((q) => q.query<SessionRow>('SELECT * FROM dashboard_sessions WHERE id_hash = $1 AND expires_at > $2', [idHash, now]));
    return rows[0] ? sessionFromRow(rows[0]) : null;
  }

  async touchSession(idHash: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
    await this.run((q) => q.query('UPDATE dashboard_sessions SET last_seen_at = $1, expires_at = $2 WHERE id_hash = $3', [lastSeenAt, expiresAt, idHash]));
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.run((q) => q.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]));
  }

  async deleteAccountSessions(accountId: string): Promise<number> {
    const res = await this.run((q) => q.query('DELETE FROM dashboard_sessions WHERE account_id = $1', [accountId]));
    return res.rowCount ?? 0;
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    const res = await this.run((q) => q.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [now]));
    return res.rowCount ?? 0;
  }
}
