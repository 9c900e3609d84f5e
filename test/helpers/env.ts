// Test configuration: a temporary data directory, quiet logs, one engine worker, no demo seed.
// PostgreSQL tests get a schema of their own so test files never collide.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';

export const PG_BASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = 'redis://127.0.0.1:6379';
/**
 * How long a test waits for an idle model to be unloaded after its TTL (a few hundred ms in those
 * tests) before it fails: the wait ends as soon as it is unloaded, so the bound only has to cover a
 * starved run (the suite runs such files at nice 10 beside a busy measuring file; 5 s was too short
 * once on a slow machine).
 */
export const UNLOAD_WAIT_MS = 30_000;

export function tempDir(prefix = 'parla-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Creates a fresh PostgreSQL schema and returns a DATABASE_URL that uses it, plus a dropper. */
export async function freshPgSchema(baseUrl = PG_BASE_URL): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const url = `${baseUrl}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    schema,
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      // The job queue's pg-boss schema of a node that used this one (src/jobs/open-queue.ts).
      await c.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE`);
      await c.end();
    },
  };
}

export function testConfig(overrides: Record<string, string | undefined> = {}, dataDir?: string): Config {
  return loadConfig({
    PARLA_DATA_DIR: dataDir ?? tempDir().dir,
    PARLA_SEED_DEMO: 'false',
    PARLA_WORKERS: '1',
    PARLA_STT_DECODERS: '1',
    PARLA_STT_PRELOAD: 'false',
    LOG_LEVEL: 'silent',
    PARLA_KEY_SECRET: 'test-secret-0123456789abcdef',
    PORT: '0',
    REALTIME_PORT: '0',
    ...overrides,
  });
}
