// GET /usage and GET /user/credits: exact record shapes, computed from the ledger, per key mode.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { newRequestId } from '../../src/edge/request-id.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function spend(auth: Awaited<ReturnType<typeof t.services.authenticator.authenticate>>, characters: number, credits: number) {
  const hold = await t.services.billing.hold(auth, { requestId: newRequestId(), kind: 'tts', model: 'aura-max', credits, characters });
  await hold.settle({ units: characters, characters, credits });
}

test('usage and credits match the ledger, live and test separately', async () => {
  const acct = await createTestAccount(t.services, { plan: 'basic', credits: 1000, testCredits: 300 });
  const live = await t.services.authenticator.authenticate(acct.apiKey);
  const testAuth = await t.services.authenticator.authenticate(acct.testKey);
  await spend(live, 100, 200);
  await spend(live, 50, 100);
  await spend(testAuth, 10, 20);
  // A failed request costs nothing.
  const failed = await t.services.billing.hold(live, {
    requestId: newRequestId(),
    kind: 'tts',
    model: 'aura-max',
    credits: 400,
    characters: 200,
  });
  await failed.release();

  const c = await t.app.inject({ method: 'GET', url: '/api/v1/user/credits', headers: { 'x-api-key': acct.apiKey } });
  assert.equal(c.statusCode, 200);
  const cb = c.json();
  assert.deepEqual(Object.keys(cb).sort(), ['credits', 'plan', 'renewal_date', 'used_this_month']);
  assert.equal(cb.credits, 700);
  assert.equal(cb.used_this_month, 300);
  assert.equal(cb.plan, 'basic');
  assert.match(cb.renewal_date, /^\d{4}-\d{2}-\d{2}$/);

  const ct = (await t.app.inject({ method: 'GET', url: '/api/v1/user/credits', headers: { 'x-api-key': acct.testKey } })).json();
  assert.equal(ct.credits, 280);
  assert.equal(ct.used_this_month, 20);

  const u = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': acct.apiKey } });
  assert.equal(u.statusCode, 200);
  const ub = u.json();
  assert.equal(ub.plan, 'basic');
  assert.ok(Date.parse(ub.period.start) <= Date.now() && Date.now() < Date.parse(ub.period.end));
  assert.deepEqual(ub.usage, {
    characters_used: 150,
    characters_limit: 100000,
    characters_remaining: 99850,
    requests_today: 2,
    requests_this_month: 2,
  });
  assert.deepEqual(ub.rate_limits, { requests_per_minute: 60, requests_per_hour: 1000 });

  const ut = (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': acct.testKey } })).json();
  assert.equal(ut.usage.characters_used, 10);
  assert.equal(ut.usage.requests_today, 1);
});

test('holds refuse overspending and the monthly quota', async () => {
  const acct = await createTestAccount(t.services, { plan: 'free', credits: 50 });
  const auth = await t.services.authenticator.authenticate(acct.apiKey);
  await assert.rejects(
    t.services.billing.hold(auth, { requestId: newRequestId(), kind: 'tts', model: 'aura-lite', credits: 51, characters: 51 }),
    (err: any) => err.code === 'INSUFFICIENT_CREDITS' && err.status === 402,
  );
  await t.services.store.addCredits(acct.accountId, 'live', 100_000);
  await assert.rejects(
    t.services.billing.hold(auth, { requestId: newRequestId(), kind: 'tts', model: 'aura-lite', credits: 10_001, characters: 10_001 }),
    (err: any) => err.code === 'QUOTA_EXCEEDED' && err.status === 429 && err.retryAfter > 0,
  );
});
