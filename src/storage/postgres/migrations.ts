// Versioned PostgreSQL schema. Append new versions; never edit an applied one.
// Tables are created unqualified, in the connection's search_path schema.

export const POSTGRES_MIGRATIONS: Array<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        plan TEXT NOT NULL CHECK (plan IN ('free', 'basic', 'pro', 'enterprise')),
        email TEXT UNIQUE,
        password_hash TEXT,
        credits BIGINT NOT NULL DEFAULT 0 CHECK (credits >= 0),
        test_credits BIGINT NOT NULL DEFAULT 0 CHECK (test_credits >= 0),
        features JSONB NOT NULL DEFAULT '{}',
        period_anchor TIMESTAMPTZ NOT NULL,
        created_at TIMESTAMPTZ NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('active', 'revoked', 'disabled')),
        expires_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL,
        last_used_at TIMESTAMPTZ
      );
      CREATE INDEX api_keys_account ON api_keys(account_id);
      CREATE TABLE credit_holds (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        mode TEXT NOT NULL,
        credits BIGINT NOT NULL CHECK (credits >= 0),
        characters BIGINT NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX credit_holds_account ON credit_holds(account_id, mode);
      CREATE INDEX credit_holds_expiry ON credit_holds(expires_at);
      CREATE TABLE usage_ledger (
        id BIGSERIAL PRIMARY KEY,
        request_id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        kind TEXT NOT NULL,
        model TEXT NOT NULL,
        units DOUBLE PRECISION NOT NULL,
        characters BIGINT NOT NULL DEFAULT 0,
        credits BIGINT NOT NULL CHECK (credits >= 0),
        created_at TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX usage_ledger_account_time ON usage_ledger(account_id, mode, created_at);
      CREATE INDEX usage_ledger_key ON usage_ledger(key_id);
    `,
  },
  {
    // The quota check's running total: ledger characters since period_start, kept in step by
    // settleHold, so a hold does not sum a month of ledger rows (see charactersCommitted).
    version: 2,
    sql: `
      CREATE TABLE quota_counters (
        account_id TEXT NOT NULL REFERENCES accounts(id),
        mode TEXT NOT NULL,
        period_start TIMESTAMPTZ NOT NULL,
        characters BIGINT NOT NULL,
        PRIMARY KEY (account_id, mode)
      );
    `,
  },
  {
    // The hold a ledger row settled: a hold is settled at most once, whatever request id it carries.
    version: 3,
    sql: `
      ALTER TABLE usage_ledger ADD COLUMN hold_id TEXT;
      CREATE UNIQUE INDEX usage_ledger_hold ON usage_ledger(hold_id);
    `,
  },
  {
    // Dashboard sign-in sessions, keyed by the SHA-256 of the cookie's token (never the token).
    version: 4,
    sql: `
      CREATE TABLE dashboard_sessions (
        id_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        csrf_token TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        last_seen_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX dashboard_sessions_account ON dashboard_sessions(account_id);
      CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at);
    `,
  },
  {
    // Insertion order, to list accounts created in the same millisecond in the order they were
    // created (SQLite has its rowid for this). Existing rows are numbered as they are stored.
    version: 5,
    sql: `
      ALTER TABLE accounts ADD COLUMN seq BIGSERIAL;
    `,
  },
  {
    // The key that signs the account's job webhooks (whsec_...). Kept as is: signing needs it.
    version: 6,
    sql: `
      ALTER TABLE accounts ADD COLUMN webhook_secret TEXT;
    `,
  },
];
