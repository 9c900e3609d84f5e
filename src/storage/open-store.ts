// Picks the store from configuration: PostgreSQL when DATABASE_URL is set, else SQLite in the data dir.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Store } from './store.js';

export async function openStore(config: Config): Promise<Store> {
  if (config.databaseUrl) {
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    return new PostgresStore(config.databaseUrl);
  }
  const { SqliteStore } = await import('./sqlite/sqlite-store.js');
  return new SqliteStore(path.join(config.dataDir, 'parla.db'));
}
