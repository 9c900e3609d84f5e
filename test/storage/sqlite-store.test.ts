import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { openStore } from '../../src/storage/open-store.js';
import { tempDir, testConfig } from '../helpers/env.js';
import { runStoreContract } from './store-contract.js';

runStoreContract('SqliteStore', async () => {
  const tmp = tempDir();
  const file = path.join(tmp.dir, 'parla.db');
  const store = new SqliteStore(file);
  return {
    store,
    cleanup: async () => {
      await store.close();
      tmp.cleanup();
    },
    // The database file and its write-ahead log, byte for byte (recent commits live in the WAL).
    dump: async () =>
      [file, `${file}-wal`]
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f).toString('latin1'))
        .join('\n'),
  };
});

test('SQLite file: WAL journal, schema version recorded, reopening migrates nothing', async () => {
  const tmp = tempDir();
  const file = path.join(tmp.dir, 'nested', 'dir', 'parla.db');
  const store = new SqliteStore(file);
  await store.migrate();
  const a = await store.createAccount({ name: 'persist', plan: 'pro', credits: 7 });
  await store.close();

  const again = new SqliteStore(file);
  await again.migrate();
  assert.equal((await again.getAccount(a.id))?.credits, 7);
  await again.close();

  const raw = new Database(file, { readonly: true });
  assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
  assert.deepEqual(raw.prepare('SELECT version FROM schema_migrations').all(), [
    { version: 1 },
    { version: 2 },
    { version: 3 },
    { version: 4 },
    { version: 5 },
  ]);
  assert.equal(raw.pragma('integrity_check', { simple: true }), 'ok');
  raw.close();
  tmp.cleanup();
});

test('openStore picks SQLite at <dataDir>/parla.db when no DATABASE_URL is set', async () => {
  const tmp = tempDir();
  const dataDir = path.join(tmp.dir, 'data');
  const store = await openStore(testConfig({ DATABASE_URL: undefined }, dataDir));
  assert.equal(store.kind, 'sqlite');
  await store.migrate();
  await store.ping();
  await store.close();
  assert.ok(existsSync(path.join(dataDir, 'parla.db')));
  tmp.cleanup();
});
