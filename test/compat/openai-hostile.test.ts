// Hostile input on the OpenAI dialect: wrong JSON types for every speech field, malformed and
// deep JSON, every multipart fault on transcriptions, oversized and odd fields. Every answer is a
// 4xx in OpenAI's error shape with X-Request-ID, nothing is billed, and the app keeps serving.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite } from '../helpers/speech.js';

let t: TestApp;
let key: string;
let accountId: string;
let wav: Buffer;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  wav = readFileSync(flite('Hello.'));
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

test('speech: malformed, empty, non-object and deeply nested JSON bodies; a form body', async () => {
  const bodies: Array<[string, string]> = [
    ['{"model": "tts-1", "input": ', 'application/json'],
    ['', 'application/json'],
    ['[1,2,3]', 'application/json'],
    ['"just a string"', 'application/json'],
    [`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, 'application/json'],
    ['model=tts-1&input=hi&voice=alloy', 'application/x-www-form-urlencoded'],
    ['--b\r\nContent-Disposition: form-data; name="input"\r\n\r\nhi\r\n--b--\r\n', 'multipart/form-data; boundary=b'],
    [JSON.stringify({ ...SPEECH_BASE, input: '\u0000\u0007\ud800' }), 'application/json'],
  ];
  for (const [payload, type] of bodies) {
    const res = await t.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { authorization: `Bearer ${key}`, 'content-type': type }, payload });
    await expectOpenAiError(res, `${type} ${payload.slice(0, 30)}`);
  }
});

test('transcriptions: multipart faults and wrong field values are 4xx in OpenAI shape', async () => {
  const send = (payload: string | Buffer, type: string) => t.app.inject({ method: 'POST', url: '/v1/audio/transcriptions', headers: { authorization: `Bearer ${key}`, 'content-type': type }, payload });
  const faults: Array<[string | Buffer, string]> = [
    ['', 'multipart/form-data'],
    ['--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF', 'multipart/form-data; boundary=b'],
    ['--b\r\nbroken header\r\n\r\nx\r\n--b--', 'multipart/form-data; boundary=b'],
    ['no boundary here', `multipart/form-data; boundary=${'z'.repeat(300)}`],
    ['{"file":"x"}', 'application/json'],
    [Buffer.alloc(100, 1), 'application/octet-stream'],
  ];
  for (const [payload, type] of faults) await expectOpenAiError(await send(payload, type), `multipart ${type.slice(0, 40)}`);

  const fieldCases: Array<Record<string, string | string[]>> = [
    { model: 'whisper-2' },
    { model: '' },
    { model: 'whisper-1', response_format: 'docx' },
    { model: 'whisper-1', response_format: 'json', 'timestamp_granularities[]': 'word' },
    { model: 'whisper-1', response_format: 'verbose_json', 'timestamp_granularities[]': 'sentence' },
    { model: 'whisper-1', language: 'xx-not-a-language' },
    { model: 'whisper-1', stream: '1e9' },
    { model: 'whisper-1', prompt: 'p'.repeat(20_000) },
  ];
  for (const fields of fieldCases) {
    const { body, contentType } = await multipart(wav, fields);
    await expectOpenAiError(await send(body, contentType), JSON.stringify(fields).slice(0, 80));
  }
  // Not audio at all.
  const { body, contentType } = await multipart(Buffer.from('this is not audio'), { model: 'whisper-1' });
  await expectOpenAiError(await send(body, contentType), 'not audio');
  // Still serving.
  const ok = await multipart(wav, { model: 'whisper-1', response_format: 'text' });
  assert.equal((await send(ok.body, ok.contentType)).statusCode, 200);
});

test('auth header abuse: wrong scheme, empty bearer, two keys, a huge token: 401 in OpenAI shape', async () => {
  const headers: Array<Record<string, string>> = [
    { authorization: `Basic ${key}` },
    { authorization: 'Bearer ' },
    { authorization: `Bearer ${'k'.repeat(10_000)}` },
    { authorization: `Token ${'k'.repeat(100)}` },
    { authorization: `Bearer${key}` },
  ];
  for (const h of headers) {
    const res = await t.app.inject({ method: 'GET', url: '/v1/models', headers: h });
    assert.equal(res.statusCode, 401, JSON.stringify(h).slice(0, 40));
    await expectOpenAiError(res, 'auth');
  }
  // Deepgram's scheme is read on every /v1 route (one key reader for the dialects: docs/compatibility.md).
  assert.equal((await t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Token ${key}` } })).statusCode, 200);
  // X-API-Key works on /v1 too (the native header is read first).
  assert.equal((await t.app.inject({ method: 'GET', url: '/v1/models', headers: { 'x-api-key': key } })).statusCode, 200);
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

test('odd methods and paths under /v1: 404 in OpenAI shape, with the key or without', async () => {
  for (const [method, url] of [['GET', '/v1/audio/speech'], ['DELETE', '/v1/models'], ['PUT', '/v1/audio/transcriptions'], ['GET', '/v1/chat/completions'], ['GET', `/v1/${'a'.repeat(3000)}`]] as const) {
    const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.statusCode, 404, `${method} ${url.slice(0, 40)}`);
    await expectOpenAiError(res, `${method} ${url.slice(0, 40)}`);
  }
});
