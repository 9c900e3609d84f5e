// The playground's API calls: the session cookie plus X-CSRF-Token stand in for X-API-Key, through
// the account's "Dashboard playground" key (per mode), billed and limited like any other key.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { PLAYGROUND_KEY_NAME } from '../../src/dashboard/playground-auth.js';
import { accountWithPassword, expectError, signedIn, type Browser } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const speak = (b: Browser, extra: { headers?: Record<string, string>; csrf?: boolean } = {}) =>
  b.request({ method: 'POST', url: '/api/v1/tts/generate', payload: { text: 'Playground test.', voice: 'Aria' }, ...extra });
const keysOf = async (b: Browser) => (await b.request({ method: 'GET', url: '/dashboard/api/keys', csrf: false })).json().keys as any[];

test('speech from the playground: billed to the live balance through the "Dashboard playground" key', async () => {
  const acc = await accountWithPassword(t, { credits: 1000 });
  const b = await signedIn(t, acc.email);
  const res = await speak(b);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'audio/wav');
  assert.ok(res.rawPayload.length > 1000);
  const used = Number(res.headers['x-credits-used']);
  assert.equal(used, 'Playground test.'.length);
  assert.equal(Number(res.headers['x-credits-remaining']), 1000 - used);
  assert.ok(res.headers['x-ratelimit-limit'], 'rate limited like any request');
  assert.equal(await t.services.store.getBalance(acc.accountId, 'live'), 1000 - used);

  assert.equal((await speak(b)).statusCode, 200);
  const playground = (await keysOf(b)).filter((k) => k.name === PLAYGROUND_KEY_NAME);
  assert.equal(playground.length, 1, 'created once, then reused');
  assert.equal(playground[0].mode, 'live');
  assert.equal(playground[0].state, 'active');
  assert.equal(playground[0].requests, 2);
  assert.equal(playground[0].credits_used, 2 * used);
  assert.ok(playground[0].last_used_at);

  // Listings work the same way (the page fills its menus from them).
  for (const url of ['/api/v1/models', '/api/v1/voices?model=aura-prime&language=en-US', '/api/v1/languages']) {
    const listed = await b.request({ method: 'GET', url });
    assert.equal(listed.statusCode, 200, `${url}: ${listed.body}`);
  }
});

test('X-Parla-Mode: test spends the test balance through a test-mode playground key', async () => {
  const acc = await accountWithPassword(t, { credits: 1000, testCredits: 300 });
  const b = await signedIn(t, acc.email);
  const res = await speak(b, { headers: { 'x-parla-mode': 'test' } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(await t.services.store.getBalance(acc.accountId, 'test'), 300 - Number(res.headers['x-credits-used']));
  assert.equal(await t.services.store.getBalance(acc.accountId, 'live'), 1000);
  const playground = (await keysOf(b)).filter((k) => k.name === PLAYGROUND_KEY_NAME);
  assert.deepEqual(
    playground.map((k) => k.mode),
    ['test'],
  );
  expectError(await speak(b, { headers: { 'x-parla-mode': 'prod' } }), 400, 'INVALID_PARAMETER');
});

test("without the CSRF token, with another session's token or from another origin: 403, nothing spent", async () => {
  const acc = await accountWithPassword(t, { credits: 1000 });
  const b = await signedIn(t, acc.email);
  const other = await signedIn(t, (await accountWithPassword(t)).email);
  expectError(await speak(b, { csrf: false }), 403, 'CSRF_FAILED');
  expectError(await speak(b, { headers: { 'x-csrf-token': other.csrf } }), 403, 'CSRF_FAILED');
  expectError(await speak(b, { headers: { origin: 'https://evil.example' } }), 403, 'CSRF_FAILED');
  // Required on reads too: the playground path never answers a page that lacks the token.
  expectError(await b.request({ method: 'GET', url: '/api/v1/models', csrf: false }), 403, 'CSRF_FAILED');
  assert.equal(await t.services.store.getBalance(acc.accountId, 'live'), 1000);
});

test('no cookie: the API answers exactly as before; a stale cookie is 401 SESSION_REQUIRED; X-API-Key wins', async () => {
  const acc = await accountWithPassword(t, { credits: 1000 });
  const b = await signedIn(t, acc.email);
  const bare = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    payload: { text: 'x', voice: 'Aria' },
    headers: { 'x-csrf-token': b.csrf },
  });
  expectError(bare, 401, 'AUTH_MISSING_API_KEY');
  const stale = await t.app.inject({
    method: 'GET',
    url: '/api/v1/models',
    cookies: { parla_session: 'A'.repeat(43) },
    headers: { 'x-csrf-token': b.csrf },
  });
  expectError(stale, 401, 'SESSION_REQUIRED');
  // With an X-API-Key the key decides, cookie or not.
  const withKey = await b.request({
    method: 'POST',
    url: '/api/v1/tts/generate',
    payload: { text: 'Key.', voice: 'Aria' },
    headers: { 'x-api-key': acc.testKey },
    csrf: false,
  });
  assert.equal(withKey.statusCode, 200, withKey.body);
  assert.equal(await t.services.store.getBalance(acc.accountId, 'live'), 1000, 'the test key paid');
  expectError(
    await b.request({ method: 'GET', url: '/api/v1/models', headers: { 'x-api-key': 'svc_live_nope' } }),
    401,
    'AUTH_INVALID_API_KEY',
  );
  // Signed out: the cookie no longer authenticates anything.
  assert.equal((await b.request({ method: 'DELETE', url: '/dashboard/api/session' })).statusCode, 204);
  expectError(await speak(b), 401, 'SESSION_REQUIRED');
});

test('a revoked playground key is replaced on next use; a disabled one stops the playground', async () => {
  const acc = await accountWithPassword(t, { credits: 1000 });
  const b = await signedIn(t, acc.email);
  assert.equal((await speak(b)).statusCode, 200);
  const first = (await keysOf(b)).find((k) => k.name === PLAYGROUND_KEY_NAME);
  assert.equal((await b.request({ method: 'DELETE', url: `/dashboard/api/keys/${first.id}` })).statusCode, 200);
  assert.equal((await speak(b)).statusCode, 200);
  const now = (await keysOf(b)).filter((k) => k.name === PLAYGROUND_KEY_NAME);
  assert.deepEqual(
    now.map((k) => k.state),
    ['revoked', 'active'],
  );
  await t.services.store.setKeyState(now[1].id, 'disabled');
  expectError(await speak(b), 401, 'AUTH_DISABLED_API_KEY');
});
