import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations.js';
import { openStore } from '../../src/storage/open-store.js';
import { StoreUnavailableError, type HoldRequest } from '../../src/storage/store.js';
import { freshPgSchema, PG_BASE_URL, testConfig } from '../helpers/env.js';
import { runStoreContract } from './store-contract.js';

/**
 * A URL on a fresh schema whose sessions run in a time zone far from UTC (UTC+14), so any day or
 * period arithmetic done in the session's zone instead of UTC shows up as a failure.
 */
async function farZoneSchema(host = '127.0.0.1:5432') {
  const schema = await freshPgSchema();
  const options = encodeURIComponent(`-c search_path=${schema.schema} -c TimeZone=Pacific/Kiritimati`);
  return { ...schema, url: `postgres://postgres@${host}/test?options=${options}` };
}

runStoreContract('PostgresStore', async () => {
  const schema = await farZoneSchema();
  const store = new PostgresStore(schema.url);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await schema.drop();
    },
    dump: async () => {
      const c = new pg.Client({ connectionString: schema.url });
      await c.connect();
      const tables = await c.query<{ t: string }>('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1', [
        schema.schema,
      ]);
      const parts: string[] = [];
      for (const { t } of tables.rows) parts.push(JSON.stringify((await c.query(`SELECT * FROM "${t}"`)).rows));
      await c.end();
      return parts.join('\n');
    },
  };
});

const hold = (accountId: string, credits: number): HoldRequest => ({
  holdId: `hold_${randomUUID()}`,
  accountId,
  mode: 'live',
  credits,
  characters: 0,
  characterLimit: null,
  periodStart: new Date(0),
  expiresAt: new Date(Date.now() + 60_000),
});

test('an unreachable PostgreSQL fails fast with StoreUnavailableError', async () => {
  const store = new PostgresStore('postgres://postgres@127.0.0.1:1/test');
  const started = Date.now();
  await assert.rejects(store.getAccount('acc_x'), StoreUnavailableError);
  await assert.rejects(store.holdCredits(hold('acc_x', 1)), StoreUnavailableError);
  await assert.rejects(store.ping(), StoreUnavailableError);
  await assert.rejects(store.migrate(), StoreUnavailableError);
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
  await store.close();
});

test('a database that accepts connections but never answers fails with StoreUnavailableError, no hang', async () => {
  const silent = net.createServer(() => undefined);
  const sockets = new Set<net.Socket>();
  silent.on('connection', (c) => sockets.add(c.on('error', () => undefined)));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const store = new PostgresStore(`postgres://postgres@127.0.0.1:${(silent.address() as net.AddressInfo).port}/test`, {
    connectTimeoutMs: 300,
  });
  const started = Date.now();
  await assert.rejects(store.getAccount('acc_x'), StoreUnavailableError);
  await assert.rejects(store.holdCredits(hold('acc_x', 1)), StoreUnavailableError);
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  await store.close();
  for (const c of sockets) c.destroy();
  await new Promise((r) => silent.close(r));
});

test('two nodes migrating at once both succeed, once', async () => {
  const schema = await freshPgSchema();
  const a = new PostgresStore(schema.url);
  const b = new PostgresStore(schema.url);
  await Promise.all([a.migrate(), b.migrate(), a.migrate()]);
  await a.createAccount({ name: 'x', plan: 'free' });
  assert.equal(await b.countAccounts(), 1);
  const c = new pg.Client({ connectionString: schema.url });
  await c.connect();
  try {
    assert.deepEqual(
      (await c.query('SELECT version FROM schema_migrations ORDER BY version')).rows,
      POSTGRES_MIGRATIONS.map((m) => ({ version: m.version })),
    );
  } finally {
    await c.end();
  }
  await a.close();
  await b.close();
  await schema.drop();
});

test('two nodes, 60 concurrent holds against a balance for exactly 25: 25 succeed', async () => {
  const schema = await freshPgSchema();
  const a = new PostgresStore(schema.url);
  const b = new PostgresStore(schema.url);
  await a.migrate();
  const acc = await a.createAccount({ name: 'two', plan: 'pro', credits: 250 });
  const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).holdCredits(hold(acc.id, 10))));
  assert.equal(results.filter((r) => r.ok).length, 25);
  assert.ok(results.every((r) => r.ok || (r.reason === 'credits' && r.balance >= 0)));
  assert.equal(await b.getBalance(acc.id, 'live'), 0);
  await a.close();
  await b.close();
  await schema.drop();
});

/** A TCP relay to PostgreSQL that the test can cut and restore, like a database restart. */
async function relay(target: number) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async cut() {
      await new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      });
    },
    async restore() {
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
  };
}

test('a database outage gives StoreUnavailableError, never a crash, and the store recovers', async () => {
  const proxy = await relay(5432);
  const schema = await farZoneSchema(`127.0.0.1:${proxy.port}`);
  const store = new PostgresStore(schema.url);
  await store.migrate();
  const acc = await store.createAccount({ name: 'outage', plan: 'pro', credits: 100 });
  // Open several pooled connections so the outage hits idle clients too (their 'error' events).
  await Promise.all(Array.from({ length: 5 }, () => store.holdCredits(hold(acc.id, 1))));

  await proxy.cut();
  await new Promise((r) => setTimeout(r, 50));
  const started = Date.now();
  await assert.rejects(store.getBalance(acc.id, 'live'), StoreUnavailableError);
  await assert.rejects(store.holdCredits(hold(acc.id, 1)), StoreUnavailableError);
  await assert.rejects(store.ping(), StoreUnavailableError);
  assert.ok(Date.now() - started < 3000);

  await proxy.restore();
  await store.ping();
  assert.equal((await store.holdCredits(hold(acc.id, 1))).ok, true);
  assert.equal(await store.getBalance(acc.id, 'live'), 94);
  await store.close();
  await proxy.cut();
  await schema.drop();
});

test('openStore picks PostgreSQL when DATABASE_URL is set', async () => {
  const store = await openStore(testConfig({ DATABASE_URL: PG_BASE_URL }));
  assert.equal(store.kind, 'postgres');
  await store.ping();
  await store.close();
});
