// decisions #34: with PostgreSQL unreachable under a running server, billable requests get 503
// CREDIT_CHECK_FAILED with Retry-After, the process keeps running, and it recovers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { freshPgSchema } from '../helpers/env.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { accountWithPassword, signedIn } from '../dashboard/helpers.js';

let t: TestApp;
let proxy: TcpProxy;
let schema: Awaited<ReturnType<typeof freshPgSchema>>;

before(async () => {
  proxy = new TcpProxy(5432);
  const port = await proxy.start();
  schema = await freshPgSchema(`postgres://postgres@127.0.0.1:${port}/test`);
  t = await createTestApp({ DATABASE_URL: schema.url });
});
after(async () => {
  await t.close();
  await proxy.cut();
  await schema.drop().catch(() => undefined);
});

test('database gone: 503 CREDIT_CHECK_FAILED; database back: 200 again', async () => {
  const { apiKey } = await createTestAccount(t.services);
  const get = () => t.app.inject({ method: 'GET', url: '/api/v1/user/credits', headers: { 'x-api-key': apiKey } });
  assert.equal((await get()).statusCode, 200);
  // A dashboard owner signed in before the outage.
  const owner = await accountWithPassword(t);
  const browser = await signedIn(t, owner.email);
  assert.equal(t.services.store.kind, 'postgres');

  await proxy.cut();
  await new Promise((r) => setTimeout(r, 600)); // past the auth cache
  const started = Date.now();
  const res = await get();
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.json().error.code, 'CREDIT_CHECK_FAILED');
  assert.ok(Number(res.headers['retry-after']) >= 1);
  assert.ok(Date.now() - started < 15_000, 'answers promptly instead of hanging');
  // The dashboard answers with the same code and a message that speaks of the store, not a balance.
  const page = await t.app.inject({ method: 'GET', url: '/dashboard/api/session', cookies: { parla_session: 'A'.repeat(43) } });
  assert.equal(page.statusCode, 503, page.body);
  assert.equal(page.json().error.code, 'CREDIT_CHECK_FAILED');
  assert.match(page.json().error.message, /account store is unreachable; the dashboard/);
  // Every dashboard route, and the playground's API calls (authenticated by the session cookie),
  // speak of the store, never of a balance.
  for (const opts of [
    { method: 'GET', url: '/dashboard/api/usage' },
    { method: 'GET', url: '/dashboard/api/keys' },
    { method: 'POST', url: '/dashboard/api/keys', payload: { name: 'ci', mode: 'live' } },
    { method: 'GET', url: '/api/v1/user/credits' },
    { method: 'POST', url: '/api/v1/tts/generate', payload: { text: 'Hello.', voice: 'Aria' } },
  ] as const) {
    const res = await browser.request({ ...opts });
    assert.equal(res.statusCode, 503, `${opts.url}: ${res.body}`);
    assert.equal(res.json().error.code, 'CREDIT_CHECK_FAILED');
    assert.match(res.json().error.message, /account store is unreachable; the dashboard/, opts.url);
    assert.doesNotMatch(res.json().error.message, /balance/, opts.url);
  }
  const health = await t.app.inject({ method: 'GET', url: '/health' });
  assert.equal(health.statusCode, 200);
  assert.equal(health.json().status, 'degraded');

  await proxy.restore();
  let ok = false;
  for (let i = 0; i < 40 && !ok; i++) {
    ok = (await get()).statusCode === 200;
    if (!ok) await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(ok, 'recovers when the database returns');
});
