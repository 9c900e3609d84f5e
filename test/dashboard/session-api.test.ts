// Dashboard sign-in, session and sign-out: cookie attributes, the same answer for unknown emails
// and wrong passwords, CSRF and origin checks, the sign-in rate limits, session lifetimes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/env.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { hashSessionToken, SessionManager } from '../../src/dashboard/sessions.js';
import { SIGN_IN_LIMIT_PER_ADDRESS, SIGN_IN_LIMIT_PER_EMAIL } from '../../src/dashboard/sign-in-limit.js';
import { PASSWORD, accountWithPassword, expectError, nextAddress, signIn, signedIn } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const getSession = (cookie?: string) =>
  t.app.inject({ method: 'GET', url: '/dashboard/api/session', ...(cookie ? { cookies: { parla_session: cookie } } : {}) });

describe('sign-in', () => {
  test('right password: the account, a CSRF token and an HttpOnly, SameSite=Strict session cookie', async () => {
    const acc = await accountWithPassword(t);
    const res = await signIn(t, acc.email.toUpperCase());
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.account, { id: acc.accountId, name: 'Test account', email: acc.email, plan: 'pro' });
    assert.match(body.csrf_token, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(Object.keys(body).sort(), ['account', 'csrf_token']);
    assert.equal(res.headers['cache-control'], 'no-store');
    const cookie = res.cookies.find((c) => c.name === 'parla_session');
    assert.ok(cookie, 'session cookie set');
    assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.path, '/');
    assert.equal(cookie.secure, undefined, 'plain HTTP: not Secure');
    assert.equal(cookie.maxAge, 7 * 24 * 3600);
    // The store holds the token's hash, never the token.
    const stored = await t.services.store.getSession(hashSessionToken(cookie.value), new Date());
    assert.equal(stored?.accountId, acc.accountId);
    assert.equal(await t.services.store.getSession(cookie.value, new Date()), null);

    const again = await getSession(cookie.value);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), body);
  });

  test('unknown email, wrong password and an account without password: one answer, similar time, no cookie', async () => {
    const acc = await accountWithPassword(t);
    // The right password on an account of its own: five tries of each kind stay within the
    // per-email limit (each sign-in comes from an address of its own).
    const other = await accountWithPassword(t);
    const { accountId: noPassword } = await accountWithPassword(t);
    await t.services.store.setPassword(noPassword, `nopass.${noPassword}@example.com`, 'not-a-hash');
    // The fastest of five tries, the four kinds taking turns within each round: a loaded machine
    // only ever adds time, and load that comes and goes weighs on every kind alike.
    type Timed = { res: Awaited<ReturnType<typeof signIn>>; ms: number };
    const kinds: Array<[string, string]> = [
      [acc.email, 'wrong password!'],
      ['nobody@example.com', 'wrong password!'],
      [`nopass.${noPassword}@example.com`, 'wrong password!'],
      [other.email, PASSWORD],
    ];
    const best: Timed[] = kinds.map(() => ({ res: null as unknown as Timed['res'], ms: Infinity }));
    for (let round = 0; round < 5; round++) {
      for (const [i, [email, password]] of kinds.entries()) {
        const started = process.hrtime.bigint();
        const res = await signIn(t, email, password);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (ms < best[i]!.ms) best[i] = { res, ms };
      }
    }
    const [wrong, unknown, unusable, right] = best as [Timed, Timed, Timed, Timed];
    assert.equal(right.res.statusCode, 200);
    for (const { res } of [wrong, unknown, unusable]) {
      const err = expectError(res, 401, 'SIGN_IN_FAILED');
      assert.equal(err.category, 'authentication');
      assert.equal(res.cookies.length, 0);
      assert.deepEqual(res.json().error, wrong.res.json().error, 'the same body');
    }
    // Every path runs one scrypt of the same cost: none answers in a fraction of the others' time
    // (a path without it would answer in under a millisecond, against ~100 ms).
    const times = [wrong.ms, unknown.ms, unusable.ms, right.ms];
    assert.ok(Math.min(...times) > Math.max(...times) / 4, `times ${times.map((x) => x.toFixed(0)).join(', ')} ms`);
  });

  test('malformed bodies are 400 in the error body', async () => {
    for (const payload of [
      {},
      { email: 'a@b.c' },
      { email: 'not-an-email', password: 'x' },
      { email: 'a@b.c', password: '' },
      { email: 'a@b.c', password: 'x'.repeat(1025) },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/dashboard/api/session', payload, remoteAddress: nextAddress() });
      expectError(res, 400, 'INVALID_PARAMETER');
    }
    const text = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/session',
      payload: 'email=a',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(text, 400, 'INVALID_REQUEST');
  });

  test('an Origin of another site is refused; our own origin (default port or not) is accepted', async () => {
    const acc = await accountWithPassword(t);
    expectError(await signIn(t, acc.email, PASSWORD, { headers: { origin: 'https://evil.example' } }), 403, 'CSRF_FAILED');
    expectError(await signIn(t, acc.email, PASSWORD, { headers: { origin: 'null' } }), 403, 'CSRF_FAILED');
    assert.equal((await signIn(t, acc.email, PASSWORD, { headers: { origin: 'http://localhost' } })).statusCode, 200);
    assert.equal(
      (await signIn(t, acc.email, PASSWORD, { headers: { host: 'parla.test:8080', origin: 'http://parla.test:8080' } })).statusCode,
      200,
    );
    expectError(
      await signIn(t, acc.email, PASSWORD, { headers: { host: 'parla.test:8080', origin: 'http://parla.test:8081' } }),
      403,
      'CSRF_FAILED',
    );
  });

  test('signing in again from the same browser replaces its session', async () => {
    const acc = await accountWithPassword(t);
    const first = await signedIn(t, acc.email);
    const res = await signIn(t, acc.email, PASSWORD, { cookies: { parla_session: first.cookie } });
    assert.equal(res.statusCode, 200);
    expectError(await getSession(first.cookie), 401, 'SESSION_REQUIRED');
  });
});

describe('session and sign-out', () => {
  test('GET /session without or with a bogus cookie is 401 SESSION_REQUIRED', async () => {
    expectError(await getSession(), 401, 'SESSION_REQUIRED');
    expectError(await getSession('x'.repeat(43)), 401, 'SESSION_REQUIRED');
    expectError(await getSession('short'), 401, 'SESSION_REQUIRED');
  });

  test('sign-out needs the CSRF token, deletes the session server-side and clears the cookie', async () => {
    const acc = await accountWithPassword(t);
    const b = await signedIn(t, acc.email);
    expectError(await b.request({ method: 'DELETE', url: '/dashboard/api/session', csrf: false }), 403, 'CSRF_FAILED');
    expectError(
      await b.request({ method: 'DELETE', url: '/dashboard/api/session', headers: { 'x-csrf-token': 'A'.repeat(43) } }),
      403,
      'CSRF_FAILED',
    );
    assert.equal((await getSession(b.cookie)).statusCode, 200, 'still signed in');
    const out = await b.request({ method: 'DELETE', url: '/dashboard/api/session' });
    assert.equal(out.statusCode, 204);
    const cleared = out.cookies.find((c) => c.name === 'parla_session');
    assert.ok(cleared && cleared.value === '' && cleared.expires!.getTime() <= Date.now(), 'cookie cleared');
    assert.equal(await t.services.store.getSession(hashSessionToken(b.cookie), new Date()), null);
    expectError(await getSession(b.cookie), 401, 'SESSION_REQUIRED');
    // Signing out without a live session just clears the cookie.
    assert.equal((await b.request({ method: 'DELETE', url: '/dashboard/api/session' })).statusCode, 204);
  });

  test('state-changing requests need the X-CSRF-Token of their own session and our origin', async () => {
    const a = await signedIn(t, (await accountWithPassword(t)).email);
    const b = await signedIn(t, (await accountWithPassword(t)).email);
    const create = (browser: typeof a, headers: Record<string, string>, csrf = true) =>
      browser.request({ method: 'POST', url: '/dashboard/api/keys', payload: { name: 'x', mode: 'test' }, headers, csrf });
    expectError(await create(a, {}, false), 403, 'CSRF_FAILED');
    expectError(await create(a, { 'x-csrf-token': b.csrf }), 403, 'CSRF_FAILED');
    expectError(await create(a, { origin: 'https://evil.example' }), 403, 'CSRF_FAILED');
    assert.equal((await create(a, { origin: 'http://localhost:80' })).statusCode, 201);
    assert.equal((await create(a, {})).statusCode, 201);
  });
});

describe('sign-in rate limits', () => {
  test(`${SIGN_IN_LIMIT_PER_EMAIL} attempts per email per 15 minutes, then 429 (even with the right password)`, async () => {
    const acc = await accountWithPassword(t);
    for (let i = 0; i < SIGN_IN_LIMIT_PER_EMAIL; i++) expectError(await signIn(t, acc.email, `wrong ${i} password`), 401, 'SIGN_IN_FAILED');
    const res = await signIn(t, acc.email.toUpperCase());
    const err = expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
    assert.equal(err.category, 'rate_limit');
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(retryAfter > 800 && retryAfter <= 900, `Retry-After ${retryAfter}`);
    assert.equal(res.cookies.length, 0);
    const other = await accountWithPassword(t);
    assert.equal((await signIn(t, other.email)).statusCode, 200, 'other emails are not affected');
  });

  test(`${SIGN_IN_LIMIT_PER_ADDRESS} attempts per client address per 15 minutes, then 429`, async () => {
    const remoteAddress = '192.0.2.77';
    const acc = await accountWithPassword(t);
    const results = await Promise.all(
      Array.from({ length: SIGN_IN_LIMIT_PER_ADDRESS }, (_, i) =>
        signIn(t, `someone${i}@example.com`, 'wrong password', { remoteAddress }),
      ),
    );
    assert.ok(results.every((r) => r.statusCode === 401));
    const res = await signIn(t, acc.email, PASSWORD, { remoteAddress });
    expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
    assert.ok(Number(res.headers['retry-after']) > 0);
    assert.equal((await signIn(t, acc.email)).statusCode, 200, 'from another address the owner still gets in');
  });
});

describe('behind a trusted proxy', () => {
  let p: TestApp;
  before(async () => {
    p = await createTestApp({ PARLA_TRUST_PROXY: 'true' });
  });
  after(() => p.close());

  test('X-Forwarded-Proto https makes the cookie Secure (only when the proxy is trusted)', async () => {
    const acc = await accountWithPassword(p);
    const res = await signIn(p, acc.email, PASSWORD, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.1' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.cookies[0]!.secure, true);
    const plain = await signIn(p, acc.email, PASSWORD, { headers: { 'x-forwarded-proto': 'http' } });
    assert.equal(plain.cookies[0]!.secure, undefined);
    // Without trust, the header is ignored.
    const direct = await signIn(t, (await accountWithPassword(t)).email, PASSWORD, { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(direct.cookies[0]!.secure, undefined);
  });
});

test('session lifetime: 12 h idle, 7 days absolute, activity recorded at most once a minute', async () => {
  const tmp = tempDir();
  const store = new SqliteStore(path.join(tmp.dir, 'parla.db'));
  await store.migrate();
  const acc = await store.createAccount({ name: 'S', plan: 'free' });
  const sessions = new SessionManager(store);
  const H = 3600_000;
  const t0 = new Date('2026-06-01T08:00:00.000Z');
  const at = (ms: number) => new Date(t0.getTime() + ms);
  const { token, session } = await sessions.create(acc.id, t0);
  assert.equal(session.expiresAt.toISOString(), at(12 * H).toISOString());
  assert.equal(await sessions.resolve(token, at(12 * H)), null, 'idle for 12 hours');
  const { token: once } = await sessions.create(acc.id, t0);
  assert.ok(await sessions.resolve(once, at(12 * H - 1)), 'used just in time');
  assert.ok(await sessions.resolve(once, at(24 * H - 2)), 'which gave it another 12 hours');

  const { token: busy } = await sessions.create(acc.id, t0);
  assert.equal(
    (await sessions.resolve(busy, at(30_000)))?.expiresAt.toISOString(),
    at(12 * H).toISOString(),
    'not written within a minute',
  );
  // Used every 11 hours: alive for 7 days from sign-in, never longer.
  let last = null;
  for (let h = 11; h < 7 * 24; h += 11) last = await sessions.resolve(busy, at(h * H));
  assert.equal(last?.expiresAt.toISOString(), at(7 * 24 * H).toISOString());
  assert.ok(await sessions.resolve(busy, at(7 * 24 * H - 1)));
  assert.equal(await sessions.resolve(busy, at(7 * 24 * H)), null, 'absolute lifetime');

  // A sign-in sweeps expired sessions away.
  await sessions.create(acc.id, at(8 * 24 * H));
  assert.equal(await store.deleteExpiredSessions(at(8 * 24 * H)), 0);
  await store.close();
  tmp.cleanup();
});
