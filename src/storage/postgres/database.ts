// What every PostgreSQL user of Parla does the same way (the Store, src/storage/postgres/, and the
// job queue, src/jobs/pgboss-queue.ts): one transaction helper and one migration runner, so a
// rollback, a broken connection and a schema version are handled alike.

import type pg from 'pg';

export type Q = Pick<pg.PoolClient, 'query'>;

export interface Migration {
  version: number;
  sql: string;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** The database is unreachable (down, a network cut, a connection lost mid-query), not the query wrong. */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e?.code && CONNECTION_CODES.has(e.code)) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Query read timeout/i.test(
    e?.message ?? '',
  );
}

/**
 * Runs fn in one transaction on a client of the pool: committed when it resolves, rolled back when
 * it throws. A client whose connection broke is dropped from the pool, not reused. `unreachable`
 * turns a connection failure into the caller's own error (the Store's StoreUnavailableError).
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (q: Q) => Promise<T>, unreachable?: (err: unknown) => Error): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw unreachable ? unreachable(err) : err;
  }
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    if (isConnectionError(err)) {
      broken = true;
      if (unreachable) throw unreachable(err);
    }
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/**
 * Applies the migrations not yet recorded in `table` (created when missing), in order, each with
 * its version row. `each` runs one migration: in a transaction of its own, or as it is when the
 * caller already holds one. The caller holds the advisory lock that keeps two nodes starting at
 * once from applying the same migration twice.
 */
export async function applyMigrations(
  q: Q,
  table: string,
  migrations: readonly Migration[],
  each: (apply: () => Promise<void>) => Promise<void> = (apply) => apply(),
): Promise<void> {
  await q.query(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  const done = new Set((await q.query<{ version: number }>(`SELECT version FROM ${table}`)).rows.map((r) => r.version));
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    await each(async () => {
      await q.query(m.sql);
      await q.query(`INSERT INTO ${table} (version) VALUES ($1)`, [m.version]);
    });
  }
}
