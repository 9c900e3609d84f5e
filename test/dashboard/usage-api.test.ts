// GET /dashboard/api/usage: the body the dashboard charts, consistent with /api/v1/usage, per mode.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestApp, type TestApp } from '../helpers/app.js';
import type { KeyMode, UsageKind } from '../../src/domain/accounts.js';
import { fillDays } from '../../src/dashboard/usage.js';
import { isoDate } from '../../src/accounts/period.js';
import { accountWithPassword, expectError, signedIn } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

/** One settled request in the ledger, as billing writes it. */
async function charge(accountId: string, keyId: string, mode: KeyMode, kind: UsageKind, credits: number, characters = 0) {
  const holdId = `hold_${randomUUID()}`;
  const held = await t.services.store.holdCredits({
    holdId,
    accountId,
    mode,
    credits,
    characters,
    characterLimit: null,
    periodStart: new Date(0),
    expiresAt: new Date(Date.now() + 60_000),
  });
  assert.ok(held.ok);
  await t.services.store.settleHold(holdId, {
    requestId: `req_${randomUUID()}`,
    accountId,
    keyId,
    mode,
    kind,
    model: 'aura-prime',
    units: credits,
    characters,
    credits,
    createdAt: new Date(),
  });
}

test('usage: plan, period, balances, characters, requests, limits and a daily TTS/STT series', async () => {
  const acc = await accountWithPassword(t, { credits: 10_000, testCredits: 500 });
  await charge(acc.accountId, acc.keyId, 'live', 'tts', 10, 10);
  await charge(acc.accountId, acc.keyId, 'live', 'tts_stream', 20, 20);
  await charge(acc.accountId, acc.keyId, 'live', 'stt', 4);
  await charge(acc.accountId, acc.keyId, 'live', 'stt_realtime', 6);
  await charge(acc.accountId, acc.keyId, 'test', 'tts', 7, 7);
  const b = await signedIn(t, acc.email);

  const res = await b.request({ method: 'GET', url: '/dashboard/api/usage', csrf: false });
  assert.equal(res.statusCode, 200, res.body);
  const u = res.json();
  const api = (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': acc.apiKey } })).json();
  const plan = t.services.config.product.plans.pro;
  const today = isoDate(new Date());
  assert.deepEqual(u, {
    mode: 'live',
    plan: 'pro',
    period: { start: api.period.start, end: api.period.end, renewal_date: api.period.end.slice(0, 10) },
    credits: { live: 10_000 - 40, test: 500 - 7 },
    credits_used_this_period: 40,
    characters: { used: 30, limit: plan.monthlyCharacters, remaining: plan.monthlyCharacters - 30 },
    requests: { today: 4, this_month: 4 },
    rate_limits: {
      requests_per_minute: plan.requestsPerMinute,
      requests_per_hour: plan.requestsPerHour,
      concurrent_requests: plan.concurrent,
    },
    // The account was created today, so its period (and the series) starts today.
    daily: [{ day: today, tts: { requests: 2, credits: 30 }, stt: { requests: 2, credits: 10 } }],
  });
  assert.equal(u.characters.used, api.usage.characters_used, 'the same numbers as /api/v1/usage');
  assert.equal(u.requests.this_month, api.usage.requests_this_month);

  const test = (await b.request({ method: 'GET', url: '/dashboard/api/usage?mode=test', csrf: false })).json();
  assert.equal(test.mode, 'test');
  assert.equal(test.credits_used_this_period, 7);
  assert.deepEqual(test.daily, [{ day: today, tts: { requests: 1, credits: 7 }, stt: { requests: 0, credits: 0 } }]);
  expectError(await b.request({ method: 'GET', url: '/dashboard/api/usage?mode=prod', csrf: false }), 400, 'INVALID_PARAMETER');
  expectError(await t.app.inject({ method: 'GET', url: '/dashboard/api/usage' }), 401, 'SESSION_REQUIRED');
});

test('the daily series covers every day from the period start to today, zeros filled', () => {
  const rows = [
    { day: '2026-03-30', kind: 'tts' as const, requests: 2, credits: 20 },
    { day: '2026-04-01', kind: 'stt' as const, requests: 1, credits: 3 },
    { day: '2026-04-01', kind: 'tts' as const, requests: 1, credits: 5 },
    { day: '2026-04-09', kind: 'tts' as const, requests: 9, credits: 9 },
  ];
  const days = fillDays(rows, new Date('2026-03-30T17:45:00Z'), new Date('2026-04-02T00:00:01Z'));
  const zero = { requests: 0, credits: 0 };
  assert.deepEqual(days, [
    { day: '2026-03-30', tts: { requests: 2, credits: 20 }, stt: zero },
    { day: '2026-03-31', tts: zero, stt: zero },
    { day: '2026-04-01', tts: { requests: 1, credits: 5 }, stt: { requests: 1, credits: 3 } },
    { day: '2026-04-02', tts: zero, stt: zero },
  ]);
  assert.equal(fillDays([], new Date('2026-01-31T23:00:00Z'), new Date('2026-03-01T00:00:00Z')).length, 30, 'February 2026 has 28 days');
});
