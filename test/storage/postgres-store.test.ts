import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { StoreUnavailableError } from '../../src/storage/store.js';
import { freshPgSchema } from '../helpers/env.js';
import { runStoreContract } from './store-contract.js';

runStoreContract('PostgresStore', async () => {
  const schema = await freshPgSchema();
  const store = new PostgresStore(schema.url);
  return { store, cleanup: async () => { await store.close(); await schema.drop(); } };
});

test('an unreachable PostgreSQL fails fast with StoreUnavailableError', async () => {
  const store = new PostgresStore('postgres://postgres@127.0.0.1:1/test');
  const started = Date.now();
  await assert.rejects(store.getAccount('acc_x'), StoreUnavailableError);
  await assert.rejects(store.holdCredits({ holdId: 'h', accountId: 'a', mode: 'live', credits: 1, characters: 0, characterLimit: null, periodStart: new Date(0), expiresAt: new Date() }), StoreUnavailableError);
  assert.ok(Date.now() - started < 8000);
  await store.close();
});

test('two nodes migrating at once both succeed', async () => {
  const schema = await freshPgSchema();
  const a = new PostgresStore(schema.url);
  const b = new PostgresStore(schema.url);
  await Promise.all([a.migrate(), b.migrate()]);
  await a.createAccount({ name: 'x', plan: 'free' });
  assert.equal(await b.countAccounts(), 1);
  await a.close();
  await b.close();
  await schema.drop();
});
