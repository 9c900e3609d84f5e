// Picks the job queue from configuration, like the store: pg-boss on DATABASE_URL when it is set,
// else the embedded SQLite queue in <dataDir>/jobs.db (its own file: see sqlite-queue.ts).
import path from 'node:path';
import type { Config } from '../config.js';
import type { JobQueue } from './queue.js';

export async function openJobQueue(config: Config): Promise<JobQueue> {
  if (config.databaseUrl) {
    const { PgBossJobQueue } = await import('./pgboss-queue.js');
    return new PgBossJobQueue(config.databaseUrl, { bossSchema: await bossSchemaFor(config.databaseUrl) });
  }
  const { SqliteJobQueue } = await import('./sqlite-queue.js');
  return new SqliteJobQueue(path.join(config.dataDir, 'jobs.db'));
}

/**
 * pg-boss's schema: `pgboss` beside tables in `public`, else `<schema>_pgboss`. Two deployments
 * (or test runs) that keep their tables in different schemas of one database then never see each
 * other's pg-boss jobs (a node cancels a pg-boss job whose record is not in its own stt_jobs).
 */
export async function bossSchemaFor(databaseUrl: string): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
    const schema = rows[0]?.schema ?? 'public';
    return schema === 'public' ? 'pgboss' : `${schema}_pgboss`;
  } finally {
    await client.end();
  }
}
