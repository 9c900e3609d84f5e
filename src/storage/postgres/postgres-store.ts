// PostgresStore: the store for many nodes, on node-postgres (pg.Pool).
//
// Billing transactions lock the account row before reading the balance and the quota (billing.ts),
// so concurrent holds from any number of nodes can never overspend. Connection failures surface as
// StoreUnavailableError (-> 503 CREDIT_CHECK_FAILED); the pool reconnects by itself when the
// database returns (connection.ts).

import type { Account, ApiKeyRecord, ApiKeyWithUsage, Feature, KeyMode, Plan, StoredKeyState } from '../../domain/accounts.js';
import { newId } from '../ids.js';
import { accountFromRow, balanceColumn, keyFromRow, patchAccountSettings, type AccountRow, type KeyRow } from '../rows.js';
import type { NewAccount, NewApiKey, Store } from '../store.js';
import { StoreParts } from '../store-parts.js';
import { PostgresBilling } from './billing.js';
import { PgConnection } from './connection.js';
import { applyMigrations } from './database.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { PostgresSessions } from './sessions.js';
import { PostgresUsage } from './usage.js';

const MIGRATION_LOCK = 7_734_221;

/** Accounts, keys and the webhook secret here; billing, usage and sessions in the files beside it (../store-parts.ts), on one connection. */
export class PostgresStore extends StoreParts implements Store {
  readonly kind = 'postgres' as const;
  private readonly db: PgConnection;

  constructor(connectionString: string, opts: { max?: number; connectTimeoutMs?: number } = {}) {
    const db = new PgConnection(connectionString, opts);
    super(new PostgresBilling(db), new PostgresUsage(db), new PostgresSessions(db));
    this.db = db;
  }

  async migrate(): Promise<void> {
    await this.db.tx(async (q) => {
      // Two nodes starting at once: the second waits here, then finds nothing left to apply.
      await q.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await applyMigrations(q, 'schema_migrations', POSTGRES_MIGRATIONS);
    });
  }

  async ping(): Promise<void> {
    await this.db.run((q) => q.query('SELECT 1'));
  }

  close(): Promise<void> {
    return this.db.close();
  }

  // ------------------------------------------------------------------ accounts

  async createAccount(input: NewAccount): Promise<Account> {
    const id = newId('acc');
    const { rows } = await this.db.run((q) =>
      q.query<AccountRow>(
        `INSERT INTO accounts (id, name, plan, email, password_hash, credits, test_credits, features, period_anchor, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, '{}', now(), now()) RETURNING *`,
        [
          id,
          input.name,
          input.plan,
          input.email?.toLowerCase() ?? null,
          input.passwordHash ?? null,
          input.credits ?? 0,
          input.testCredits ?? 0,
        ],
      ),
    );
    return accountFromRow(rows[0]!);
  }

  async getAccount(id: string): Promise<Account | null> {
    const { rows } = await this.db.run((q) => q.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]));
    return rows[0] ? accountFromRow(rows[0]) : null;
  }

  async findAccountByEmail(email: string): Promise<(Account & { passwordHash: string | null }) | null> {
    const { rows } = await this.db.run((q) => q.query<AccountRow>('SELECT * FROM accounts WHERE email = $1', [email.toLowerCase()]));
    return rows[0] ? { ...accountFromRow(rows[0]), passwordHash: rows[0].password_hash ?? null } : null;
  }

  async listAccounts(): Promise<Account[]> {
    const { rows } = await this.db.run((q) => q.query<AccountRow>('SELECT * FROM accounts ORDER BY created_at, seq'));
    return rows.map(accountFromRow);
  }

  async countAccounts(): Promise<number> {
    const { rows } = await this.db.run((q) => q.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM accounts'));
    return rows[0]!.n;
  }

  async setPlan(accountId: string, plan: Plan): Promise<void> {
    await this.db.run((q) => q.query('UPDATE accounts SET plan = $1 WHERE id = $2', [plan, accountId]));
  }

  async setFeature(accountId: string, feature: Feature, enabled: boolean): Promise<void> {
    await this.patchSettings(accountId, { [feature]: enabled });
  }

  async setZeroRetention(accountId: string, on: boolean): Promise<void> {
    await this.patchSettings(accountId, { zero_retention: on });
  }

  private async patchSettings(accountId: string, patch: Record<string, boolean>): Promise<void> {
    await this.db.tx(async (q) => {
      const { rows } = await q.query<{ features: unknown }>('SELECT features FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      if (!rows[0]) return;
      await q.query('UPDATE accounts SET features = $1 WHERE id = $2', [patchAccountSettings(rows[0].features, patch), accountId]);
    });
  }

  async setPassword(accountId: string, email: string, passwordHash: string): Promise<void> {
    await this.db.run((q) =>
      q.query('UPDATE accounts SET email = $1, password_hash = $2 WHERE id = $3', [email.toLowerCase(), passwordHash, accountId]),
    );
  }

  async addCredits(accountId: string, mode: KeyMode, amount: number): Promise<number> {
    const col = balanceColumn(mode);
    const { rows } = await this.db.run((q) =>
      q.query<{ b: number }>(`UPDATE accounts SET ${col} = GREATEST(0, ${col} + $1) WHERE id = $2 RETURNING ${col} AS b`, [
        amount,
        accountId,
      ]),
    );
    return rows[0]?.b ?? 0;
  }

  getBalance(accountId: string, mode: KeyMode): Promise<number> {
    return this.db.balance(this.db.pool, accountId, mode, false);
  }

  // ------------------------------------------------------------------ keys

  async createKey(input: NewApiKey): Promise<ApiKeyRecord> {
    const id = newId('key');
    const { rows } = await this.db.run((q) =>
      q.query<KeyRow>(
        `INSERT INTO api_keys (id, account_id, name, mode, hash, prefix, state, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, now()) RETURNING *`,
        [id, input.accountId, input.name, input.mode, input.hash, input.prefix, input.expiresAt],
      ),
    );
    return keyFromRow(rows[0]!);
  }

  async findKeyByHash(hash: string): Promise<{ key: ApiKeyRecord; account: Account } | null> {
    const { rows } = await this.db.run((q) =>
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
    const { rows } = await this.db.run((q) => q.query<KeyRow>('SELECT * FROM api_keys WHERE id = $1', [keyId]));
    return rows[0] ? keyFromRow(rows[0]) : null;
  }

  async listKeys(accountId: string): Promise<ApiKeyWithUsage[]> {
    const { rows } = await this.db.run((q) =>
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
    const res = await this.db.run((q) => q.query("UPDATE api_keys SET state = $1 WHERE id = $2 AND state <> 'revoked'", [state, keyId]));
    return res.rowCount === 1;
  }

  async touchKey(keyId: string, at: Date): Promise<void> {
    await this.db.run((q) => q.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [at, keyId]));
  }

  // ------------------------------------------------------------------ webhook secret

  async getWebhookSecret(accountId: string, fresh: string): Promise<string | null> {
    // One statement: the row lock makes a concurrent first call wait and then keep the winner's secret.
    const { rows } = await this.db.run((q) =>
      q.query<{ webhook_secret: string }>(
        'UPDATE accounts SET webhook_secret = COALESCE(webhook_secret, $1) WHERE id = $2 RETURNING webhook_secret',
        [fresh, accountId],
      ),
    );
    return rows[0]?.webhook_secret ?? null;
  }

  async rotateWebhookSecret(accountId: string, fresh: string): Promise<boolean> {
    const res = await this.db.run((q) => q.query('UPDATE accounts SET webhook_secret = $1 WHERE id = $2', [fresh, accountId]));
    return res.rowCount === 1;
  }
}
