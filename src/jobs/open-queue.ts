// Picks the job queue from configuration, like the store: pg-boss on DATABASE_URL when it is set,
// else the embedded SQLite queue in <dataDir>/jobs.db (its own file: see sqlite-queue.ts).
import path from 'node:path';
import type { Config } from '../config.js';
import type { JobQueue } from './queue.js';

export async function openJobQueue(config: Config): Promise<JobQueue> {
  if (config.databaseUrl) {
    const { PgBossJobQueue } = await import('./pgboss-queue.js');
    return new PgBossJobQueue(config.databaseUrl);
  }
  const { SqliteJobQueue } = await import('./sqlite-queue.js');
  return new SqliteJobQueue(path.join(config.dataDir, 'jobs.db'));
}
