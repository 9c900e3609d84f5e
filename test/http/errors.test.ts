// The error contract: every error is the body of docs/interface.md with X-Request-ID = request_id.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;

function assertErrorBody(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code: string) {
  assert.equal(res.statusCode, status, `status for ${code}: ${JSON.stringify(res.json())}`);
  const body = res.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  for (const f of ['message', 'category', 'resolution']) assert.equal(typeof body.error[f], 'string', f);
  assert.equal(typeof body.error.details, 'object');
  assert.match(body.request_id, /^req_[0-9a-f]{32}$/);
  assert.equal(res.headers['x-request-id'], body.request_id);
  assert.equal(typeof body.timestamp, 'number');
  assert.ok(Math.abs(body.timestamp - Date.now() / 1000) < 60);
  assert.ok(!Number.isInteger(body.timestamp) || body.timestamp % 1 === 0);
  assert.ok(!JSON.stringify(body).includes('    at '), 'no stack trace');
  return body;
}

before(async () => {
  t = await createTestApp(
    {},
    {
      beforeReady(app) {
        // A route that validates like the TTS routes do, and one that fails unexpectedly.
        app.post(
          '/api/v1/test-echo',
          {
            schema: {
              body: Type.Object({
                text: Type.String({ minLength: 1, maxLength: 20 }),
                voice: Type.Optional(Type.String()),
                speed: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2 })),
                format: Type.Optional(Type.Union([Type.Literal('wav'), Type.Literal('mp3')])),
              }),
            },
          },
          async (req) => req.body,
        );
        app.get('/api/v1/test-crash', async () => {
          throw new Error('database password is hunter2');
        });
      },
    },
  );
  key = (await createTestAccount(t.services)).apiKey;
});
after(() => t.close());

test('unknown route: 404 NOT_FOUND with the error body', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/nope' });
  assertErrorBody(res, 404, 'NOT_FOUND');
  const res2 = await t.app.inject({ method: 'DELETE', url: '/health' });
  assertErrorBody(res2, 404, 'NOT_FOUND');
});

test('unexpected failure: 500 INTERNAL_ERROR without internals', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/test-crash', headers: { 'x-api-key': key } });
  const body = assertErrorBody(res, 500, 'INTERNAL_ERROR');
  assert.ok(!JSON.stringify(body).includes('hunter2'));
  assert.equal(body.error.category, 'server');
});

test('malformed JSON: 400 INVALID_REQUEST', async () => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/test-echo',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: '{"text": "hi",',
  });
  assertErrorBody(res, 400, 'INVALID_REQUEST');
});

test('wrong content type: 400 INVALID_REQUEST naming the type', async () => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/test-echo',
    headers: { 'x-api-key': key, 'content-type': 'application/xml' },
    payload: '<text>hi</text>',
  });
  const body = assertErrorBody(res, 400, 'INVALID_REQUEST');
  assert.match(body.error.message, /Content-Type/);
});

test('a JSON array or string body: 400 INVALID_REQUEST', async () => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/test-echo',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: '[1,2]',
  });
  assertErrorBody(res, 400, 'INVALID_REQUEST');
});

test('field errors map to their codes and name the field', async () => {
  const post = (payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/v1/test-echo', headers: { 'x-api-key': key }, payload: payload as object });
  assertErrorBody(await post({}), 400, 'MISSING_TEXT');
  assertErrorBody(await post({ text: '' }), 400, 'MISSING_TEXT');
  const long = assertErrorBody(await post({ text: 'x'.repeat(21) }), 413, 'TEXT_TOO_LONG');
  assert.equal(long.error.category, 'validation');
  const speed = assertErrorBody(await post({ text: 'hi', speed: 3 }), 400, 'INVALID_SPEED');
  assert.equal(speed.error.details.field, 'speed');
  assert.equal(speed.error.details.provided, '3');
  // Strict JSON types: a numeric string is not a number.
  assertErrorBody(await post({ text: 'hi', speed: '1.5' }), 400, 'INVALID_SPEED');
  const fmt = assertErrorBody(await post({ text: 'hi', format: 'aiff' }), 400, 'INVALID_FORMAT');
  assert.equal(fmt.error.details.provided, 'aiff');
  const typ = assertErrorBody(await post({ text: 42 }), 400, 'INVALID_PARAMETER');
  assert.match(typ.error.message, /text/);
  const voice = assertErrorBody(await post({ text: 'hi', voice: 7 }), 400, 'INVALID_VOICE');
  assert.match(voice.error.message, /voice/);
});

test('every response carries X-Request-ID, successes too', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/health' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['x-request-id']), /^req_[0-9a-f]{32}$/);
});
