// Crash safety on SQLite: SIGKILL a process in the middle of write-heavy billing; after restart the
// database opens cleanly and every credit is accounted for (balance + ledger + holds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/env.js';

test('SIGKILL during write-heavy billing leaves a consistent database', async () => {
  const tmp = tempDir();
  const file = path.join(tmp.dir, 'parla.db');
  const initial = 1_000_000;
  const setup = new SqliteStore(file);
  await setup.migrate();
  const account = await setup.createAccount({ name: 'crash', plan: 'pro', credits: initial });
  await setup.close();

  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/billing-writer.ts', file, account.id], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  await new Promise((r) => setTimeout(r, 1500));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));

  const raw = new Database(file);
  assert.equal((raw.pragma('integrity_check') as Array<{ integrity_check: string }>)[0]!.integrity_check, 'ok');
  const ledger = raw.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(credits), 0) AS credits FROM usage_ledger').get() as {
    n: number;
    credits: number;
  };
  const held = raw.prepare('SELECT COALESCE(SUM(credits), 0) AS credits FROM credit_holds').get() as { credits: number };
  const balance = (raw.prepare('SELECT credits FROM accounts WHERE id = ?').get(account.id) as { credits: number }).credits;
  raw.close();
  assert.ok(ledger.n > 50, `the writer got going (${ledger.n} rows)`);
  assert.equal(balance + ledger.credits + held.credits, initial, 'every credit is in the balance, the ledger or a hold');
  assert.equal(ledger.credits, ledger.n * 2);

  // Reopened by the service: migrations are a no-op and expired holds come back.
  const store = new SqliteStore(file);
  await store.migrate();
  await store.releaseExpiredHolds(new Date(Date.now() + 120_000));
  assert.equal(await store.getBalance(account.id, 'live'), initial - ledger.credits);
  await store.close();
  tmp.cleanup();
});
