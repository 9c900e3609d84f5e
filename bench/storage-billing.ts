// Cost of billing in each store: a hold (credit check + debit) followed by its settlement (ledger
// row + refund), per request, with 1 and with 20 requests in flight, on one account (every request
// contends for the same row) and spread over 20 accounts; with and without the monthly character
// quota check. Run: node --import tsx bench/storage-billing.ts   (PostgreSQL at 127.0.0.1:5432)
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresStore } from '../src/storage/postgres/postgres-store.js';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../src/storage/store.js';
import { median, table } from './lib.js';

const REQUESTS = Number(process.env.REQUESTS ?? 1000);
const RUNS = Number(process.env.RUNS ?? 3);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Fixed for the run, as a real period start is for a month. */
const PERIOD_START = new Date(Date.now() - 86_400_000);

async function cycle(s: Store, accountId: string, quota: boolean): Promise<void> {
  const holdId = randomUUID();
  const r = await s.holdCredits({
    holdId,
    accountId,
    mode: 'live',
    credits: 10,
    characters: 10,
    characterLimit: quota ? 1_000_000_000 : null,
    periodStart: PERIOD_START,
    expiresAt: new Date(Date.now() + 60_000),
  });
  if (!r.ok) throw new Error('refused');
  await s.settleHold(holdId, {
    requestId: randomUUID(),
    accountId,
    keyId: 'key_bench',
    mode: 'live',
    kind: 'tts',
    model: 'bench',
    units: 10,
    characters: 10,
    credits: 8,
    createdAt: new Date(),
  });
}

async function usPerRequest(s: Store, accounts: string[], inFlight: number, quota: boolean): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      while (next++ < REQUESTS) await cycle(s, accounts[w % accounts.length]!, quota);
    }),
  );
  return ((performance.now() - started) * 1000) / REQUESTS;
}

async function measure(name: string, s: Store): Promise<Array<Record<string, string | number>>> {
  await s.migrate();
  const one = [(await s.createAccount({ name: 'bench', plan: 'enterprise', credits: 1e12 })).id];
  const many = await Promise.all(
    Array.from({ length: 20 }, async () => (await s.createAccount({ name: 'bench', plan: 'enterprise', credits: 1e12 })).id),
  );
  const rows: Array<Record<string, string | number>> = [];
  for (const quota of [false, true]) {
    for (const [label, accounts, inFlight] of [
      ['1 account, 1 in flight', one, 1],
      ['1 account, 20 in flight', one, 20],
      ['20 accounts, 20 in flight', many, 20],
    ] as const) {
      await usPerRequest(s, accounts as string[], inFlight, quota); // warm-up
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await usPerRequest(s, accounts as string[], inFlight, quota));
      const us = median(runs);
      rows.push({ store: name, quota: quota ? 'yes' : 'no', load: label, 'µs per hold+settle': us, 'requests/s': Math.round(1e6 / us) });
    }
  }
  return rows;
}

const dir = mkdtempSync(path.join(tmpdir(), 'parla-bench-store-'));
const sqlite = new SqliteStore(path.join(dir, 'parla.db'));
const rows = await measure('sqlite', sqlite);
await sqlite.close();
rmSync(dir, { recursive: true, force: true });

const schema = `bench_${randomUUID().slice(0, 8)}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
try {
  const store = new PostgresStore(`${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`);
  rows.push(...(await measure('postgres', store)));
  await store.close();
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}
console.log(table(rows));
