// Dashboard API keys: list with usage, create (the full key once, and it works), revoke (the API
// refuses the key from the very next request), and only ever the signed-in account's keys.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey } from '../../src/accounts/admin.js';
import { MAX_ACTIVE_KEYS_PER_MODE } from '../../src/accounts/api-keys.js';
import { accountWithPassword, expectError, signedIn, type Browser } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const apiUsage = (apiKey: string) => t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } });
const list = async (b: Browser) => {
  const res = await b.request({ method: 'GET', url: '/dashboard/api/keys', csrf: false });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().keys as any[];
};
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('the list shows every key of the account with its usage, never the key itself', async () => {
  const acc = await accountWithPassword(t);
  const b = await signedIn(t, acc.email);
  // One billable request with the live key, so its usage shows.
  const spoken = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': acc.apiKey },
    payload: { text: 'Hello there.', voice: 'Aria' },
  });
  assert.equal(spoken.statusCode, 200, spoken.body);
  const keys = await list(b);
  // Creation order; keys made in the same millisecond may come in either order.
  assert.deepEqual(keys.map((k) => k.name).sort(), ['test', 'test-mode']);
  const live = keys.find((k) => k.name === 'test');
  const test = keys.find((k) => k.name === 'test-mode');
  assert.deepEqual(
    Object.keys(live).sort(),
    ['created_at', 'credits_used', 'expires_at', 'id', 'last_used_at', 'mode', 'name', 'prefix', 'requests', 'state'].sort(),
  );
  assert.equal(live.id, acc.keyId);
  assert.equal(live.mode, 'live');
  assert.equal(live.state, 'active');
  assert.equal(live.prefix, acc.apiKey.slice(0, 13));
  assert.match(live.created_at, ISO);
  assert.match(live.last_used_at, ISO);
  assert.equal(live.expires_at, null);
  assert.equal(live.requests, 1);
  assert.equal(live.credits_used, Number(spoken.headers['x-credits-used']));
  assert.equal(test.mode, 'test');
  assert.equal(test.last_used_at, null);
  assert.equal(test.requests, 0);
  assert.ok(!JSON.stringify(keys).includes(acc.apiKey.slice(13)), 'no full key in the list');
  expectError(await t.app.inject({ method: 'GET', url: '/dashboard/api/keys' }), 401, 'SESSION_REQUIRED');
});

test('a key past its expires_at is listed as "expired"', async () => {
  const acc = await accountWithPassword(t);
  const b = await signedIn(t, acc.email);
  await createApiKey(t.services.store, t.services.config, {
    accountId: acc.accountId,
    name: 'old',
    mode: 'live',
    expiresAt: new Date(Date.now() - 1000),
  });
  const old = (await list(b)).find((k) => k.name === 'old');
  assert.equal(old.state, 'expired');
  assert.match(old.expires_at, ISO);
});

test('create: 201 with the full key shown once; it works against the API at once', async () => {
  const acc = await accountWithPassword(t);
  const b = await signedIn(t, acc.email);
  for (const mode of ['live', 'test'] as const) {
    const res = await b.request({ method: 'POST', url: '/dashboard/api/keys', payload: { name: `  CI ${mode}  `, mode } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const { key, api_key } = res.json();
    assert.match(api_key, new RegExp(`^svc_${mode}_[A-Za-z0-9]{40}$`));
    assert.equal(key.name, `CI ${mode}`, 'trimmed');
    assert.equal(key.mode, mode);
    assert.equal(key.state, 'active');
    assert.equal(key.prefix, api_key.slice(0, 13));
    assert.equal(key.requests, 0);
    assert.equal(key.credits_used, 0);
    assert.equal(key.last_used_at, null);
    const used = await apiUsage(api_key);
    assert.equal(used.statusCode, 200, used.body);
    assert.ok((await list(b)).some((k) => k.id === key.id && k.state === 'active'));
  }
});

test('create: name 1 to 100 characters and mode live|test, else 400', async () => {
  const acc = await accountWithPassword(t);
  const b = await signedIn(t, acc.email);
  const create = (payload: unknown) => b.request({ method: 'POST', url: '/dashboard/api/keys', payload: payload as object });
  for (const payload of [
    { mode: 'live' },
    { name: '', mode: 'live' },
    { name: '   ', mode: 'live' },
    { name: 'x'.repeat(101), mode: 'live' },
    { name: 'x', mode: 'prod' },
    { name: 'x' },
    { name: 5, mode: 'live' },
  ]) {
    const err = expectError(await create(payload), 400, 'INVALID_PARAMETER');
    assert.ok(['name', 'mode'].includes(err.details.field), JSON.stringify(err));
  }
  assert.equal((await create({ name: 'x'.repeat(100), mode: 'test' })).statusCode, 201);
  const reserved = expectError(await create({ name: 'dashboard Playground ', mode: 'live' }), 400, 'INVALID_PARAMETER');
  assert.match(reserved.message, /reserved/);
  expectError(
    await b.request({ method: 'POST', url: '/dashboard/api/keys', payload: '{"name":', headers: { 'content-type': 'application/json' } }),
    400,
    'INVALID_REQUEST',
  );
});

test('revoke: 200 with state "revoked", and the API refuses the key from the next request (it was cached)', async () => {
  const acc = await accountWithPassword(t);
  const b = await signedIn(t, acc.email);
  const created = (await b.request({ method: 'POST', url: '/dashboard/api/keys', payload: { name: 'to revoke', mode: 'live' } })).json();
  assert.equal((await apiUsage(created.api_key)).statusCode, 200, 'used, so the authenticator has it cached');
  expectError(await b.request({ method: 'DELETE', url: `/dashboard/api/keys/${created.key.id}`, csrf: false }), 403, 'CSRF_FAILED');
  assert.equal((await apiUsage(created.api_key)).statusCode, 200, 'a refused revoke changed nothing');

  const res = await b.request({ method: 'DELETE', url: `/dashboard/api/keys/${created.key.id}` });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().key.id, created.key.id);
  assert.equal(res.json().key.state, 'revoked');
  assert.equal(res.json().key.requests, 0, 'GET /usage is not billable');
  const refused = expectError(await apiUsage(created.api_key), 401, 'AUTH_REVOKED_API_KEY');
  assert.equal(refused.category, 'authentication');
  assert.equal((await list(b)).find((k) => k.id === created.key.id).state, 'revoked');
  // Revoking again answers the same; revocation stays final.
  assert.equal((await b.request({ method: 'DELETE', url: `/dashboard/api/keys/${created.key.id}` })).json().key.state, 'revoked');
  assert.equal((await apiUsage(acc.apiKey)).statusCode, 200, "the account's other keys still work");
});

test("revoke: another account's key or an unknown id is 404 KEY_NOT_FOUND, and stays untouched", async () => {
  const mine = await accountWithPassword(t);
  const theirs = await accountWithPassword(t);
  const b = await signedIn(t, mine.email);
  for (const id of [theirs.keyId, 'key_doesnotexist00000', 'x']) {
    const err = expectError(await b.request({ method: 'DELETE', url: `/dashboard/api/keys/${id}` }), 404, 'KEY_NOT_FOUND');
    assert.equal(err.category, 'not_found');
  }
  assert.equal((await t.services.store.getKey(theirs.keyId))?.state, 'active');
  assert.equal((await apiUsage(theirs.apiKey)).statusCode, 200);
  expectError(await t.app.inject({ method: 'DELETE', url: `/dashboard/api/keys/${mine.keyId}` }), 401, 'SESSION_REQUIRED');
});

test('create: at most 100 active keys per mode; one more is 403 KEY_LIMIT_REACHED; revoked and expired keys and the other mode do not count', async () => {
  const acc = await accountWithPassword(t);
  const b = await signedIn(t, acc.email);
  const create = (mode: string) => b.request({ method: 'POST', url: '/dashboard/api/keys', payload: { name: `k-${mode}`, mode } });
  // The account has one live key ("test"); an expired one does not count.
  await createApiKey(t.services.store, t.services.config, {
    accountId: acc.accountId,
    name: 'old',
    mode: 'live',
    expiresAt: new Date(Date.now() - 1000),
  });
  for (let i = 0; i < MAX_ACTIVE_KEYS_PER_MODE - 2; i++)
    await createApiKey(t.services.store, t.services.config, { accountId: acc.accountId, name: `bulk ${i}`, mode: 'live' });
  // The playground's own key is the dashboard's, not one the owner made.
  const played = await b.request({ method: 'GET', url: '/api/v1/user/credits' });
  assert.equal(played.statusCode, 200, played.body);
  const last = await create('live');
  assert.equal(last.statusCode, 201, last.body);
  const over = expectError(await create('live'), 403, 'KEY_LIMIT_REACHED');
  assert.match(over.message, /100/);
  assert.deepEqual(over.details, { limit: 100, mode: 'live' });
  assert.equal((await list(b)).filter((k) => k.mode === 'live' && k.state === 'active' && k.name !== 'Dashboard playground').length, 100);
  // The test mode has its own 100.
  assert.equal((await create('test')).statusCode, 201);
  // Revoking one makes room for one.
  const revoked = await b.request({ method: 'DELETE', url: `/dashboard/api/keys/${last.json().key.id}` });
  assert.equal(revoked.statusCode, 200, revoked.body);
  assert.equal((await create('live')).statusCode, 201);
  expectError(await create('live'), 403, 'KEY_LIMIT_REACHED');
});
