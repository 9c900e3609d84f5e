// The Store's connection to PostgreSQL: the pool, the two ways a statement runs (alone, or in a
// transaction) and the balance read every billing transaction starts with. Shared by the parts of
// the Store (postgres-store.ts, billing.ts, usage.ts, sessions.ts).

import pg from 'pg';
import type { KeyMode } from '../../domain/accounts.js';
import { balanceColumn } from '../rows.js';
import { StoreUnavailableError } from '../store.js';
import { inTransaction, isConnectionError, type Q } from './database.js';

// BIGINT and NUMERIC arrive as strings by default; the values here fit comfortably in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

const unreachable = (err: unknown) => new StoreUnavailableError(`PostgreSQL unreachable: ${(err as Error).message}`, { cause: err });

export class PgConnection {
  readonly pool: pg.Pool;

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

  /** One statement (or a few) outside a transaction; a lost connection becomes StoreUnavailableError. */
  async run<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    try {
      return await fn(this.pool);
    } catch (err) {
      if (isConnectionError(err)) throw unreachable(err);
      throw err;
    }
  }

  tx<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn, unreachable);
  }

  /** The balance of a mode; with `lock`, inside a transaction, the account row stays locked until it ends. */
  async balance(q: Q, accountId: string, mode: KeyMode, lock: boolean): Promise<number> {
    const read = () =>
      q.query<{ b: number }>(`SELECT ${balanceColumn(mode)} AS b FROM accounts WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [accountId]);
    const { rows } = q === this.pool ? await this.run(read) : await read();
    return rows[0]?.b ?? 0;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
