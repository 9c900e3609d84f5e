// Hostile input on the OpenAI dialect that needs more than one answer to judge: wrong JSON types
// for every speech field bill nothing (the balance is read before and after), and revoked or
// disabled keys. The named cases and generated bodies for /v1 (malformed and deep JSON, multipart
// faults, odd fields, auth headers, methods and paths, opus/aac) live in the shared hostile corpus
// (test/hostile/corpus.ts, generated.ts), which checks OpenAI's error shape on every answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;
let accountId: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
});
after(() => t.close());

const SPEECH_BASE = { model: 'tts-1', input: 'Hi.', voice: 'alloy', response_format: 'wav', speed: 1, instructions: 'calm', stream_format: 'audio' };

/** Wrong-typed values for a field (null is "not given" and is left out). */
const WRONG = [123, -1, true, [], ['alloy'], {}, { id: 'alloy' }, '', 'x'.repeat(5000), 'mp4', 1e308, 'NaN'];

/** Whether `v` is a value the speech field takes (then it is no hostile case for that field). */
function accepted(field: string, v: unknown): boolean {
  if (field === 'input') return typeof v === 'string' && v.length >= 1 && v.length <= 4096;
  if (field === 'instructions') return typeof v === 'string' && v.length <= 4096;
  if (field === 'speed') return typeof v === 'number' && v >= 0.25 && v <= 4;
  return false;
}

async function expectOpenAiError(res: { statusCode: number; headers: Record<string, unknown>; body: string }, what: string) {
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  const body = JSON.parse(res.body);
  assert.equal(typeof body.error?.message, 'string', what);
  assert.equal(typeof body.error?.type, 'string', what);
  assert.equal(typeof body.error?.code, 'string', what);
  assert.ok('param' in body.error, what);
  assert.ok(res.headers['x-request-id'], what);
}

test('speech: a wrong type or value in every field is a 4xx in OpenAI shape, nothing billed', async () => {
  const before = await t.services.store.getBalance(accountId, 'live');
  for (const field of Object.keys(SPEECH_BASE)) {
    for (const v of WRONG) {
      const body = { ...SPEECH_BASE, [field]: v };
      // Values the field really accepts are not hostile for it.
      if (accepted(field, v)) continue;
      const res = await t.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { authorization: `Bearer ${key}` }, payload: body });
      await expectOpenAiError(res, `${field}=${JSON.stringify(v).slice(0, 40)}`);
    }
  }
  assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
});

test('key states: a revoked and a disabled key are 401 in OpenAI shape', async () => {
  for (const state of ['disabled', 'revoked'] as const) {
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 1000 });
    assert.ok(await t.services.store.setKeyState(acct.keyId, state));
    t.services.authenticator.invalidate();
    const res = await t.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { authorization: `Bearer ${acct.apiKey}` }, payload: SPEECH_BASE });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, `auth_${state}_api_key`);
  }
});
