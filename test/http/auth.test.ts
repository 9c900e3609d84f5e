// Each authentication code and key state (decisions #22, #23), and keys never stored or logged in clear.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey } from '../../src/accounts/admin.js';

let t: TestApp;
const logLines: string[] = [];
before(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(chunk.toString());
      cb();
    },
  });
  const { loggerOptions } = await import('../../src/app.js');
  t = await createTestApp({}, { logger: pino({ ...loggerOptions('trace') }, sink) });
});
after(() => t.close());

const credits = (key?: string) =>
  t.app.inject({ method: 'GET', url: '/api/v1/user/credits', headers: key === undefined ? {} : { 'x-api-key': key } });

function code(res: { statusCode: number; json(): any }) {
  assert.equal(res.statusCode, 401);
  assert.equal(res.json().error.category, 'authentication');
  return res.json().error.code;
}

test('missing, malformed and unknown keys', async () => {
  assert.equal(code(await credits()), 'AUTH_MISSING_API_KEY');
  assert.equal(code(await credits('')), 'AUTH_MISSING_API_KEY');
  assert.equal(code(await credits('not-a-key')), 'AUTH_INVALID_API_KEY');
  assert.equal(code(await credits(`svc_live_${'A'.repeat(40)}`)), 'AUTH_INVALID_API_KEY');
});

test('key states: revoked (final), disabled (reversible), expired', async () => {
  const { apiKey, keyId, accountId } = await createTestAccount(t.services);
  assert.equal((await credits(apiKey)).statusCode, 200);

  assert.equal(await t.services.store.setKeyState(keyId, 'disabled'), true);
  t.services.authenticator.invalidate();
  assert.equal(code(await credits(apiKey)), 'AUTH_DISABLED_API_KEY');
  assert.equal(await t.services.store.setKeyState(keyId, 'active'), true);
  t.services.authenticator.invalidate();
  assert.equal((await credits(apiKey)).statusCode, 200);

  assert.equal(await t.services.store.setKeyState(keyId, 'revoked'), true);
  t.services.authenticator.invalidate();
  assert.equal(code(await credits(apiKey)), 'AUTH_REVOKED_API_KEY');
  assert.equal(await t.services.store.setKeyState(keyId, 'active'), false, 'revocation is final');
  t.services.authenticator.invalidate();
  assert.equal(code(await credits(apiKey)), 'AUTH_REVOKED_API_KEY');

  const soon = await createApiKey(t.services.store, t.services.config, {
    accountId,
    name: 'short-lived',
    mode: 'live',
    expiresAt: new Date(Date.now() + 400),
  });
  assert.equal((await credits(soon.rawKey)).statusCode, 200);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(code(await credits(soon.rawKey)), 'AUTH_EXPIRED_API_KEY');
});

test('a revocation made elsewhere is refused within one second (cache under 1 s)', async () => {
  const { apiKey, keyId } = await createTestAccount(t.services);
  assert.equal((await credits(apiKey)).statusCode, 200);
  await t.services.store.setKeyState(keyId, 'revoked');
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(code(await credits(apiKey)), 'AUTH_REVOKED_API_KEY');
});

test('the full key is never stored in the database or written to the logs', async () => {
  const { apiKey } = await createTestAccount(t.services);
  assert.equal((await credits(apiKey)).statusCode, 200);
  await t.app.inject({ method: 'GET', url: `/api/v1/usage?api_key=${apiKey}`, headers: { 'x-api-key': apiKey } });
  await t.app.inject({ method: 'GET', url: '/api/v1/nope', headers: { 'x-api-key': apiKey } });
  const secretPart = apiKey.slice(13);
  const dir = t.services.config.dataDir;
  for (const f of readdirSync(dir)) {
    if (!f.startsWith('parla.db')) continue;
    const bytes = readFileSync(path.join(dir, f));
    assert.equal(bytes.indexOf(Buffer.from(secretPart)), -1, `key found in ${f}`);
  }
  assert.ok(logLines.length > 0, 'logs were captured');
  assert.ok(!logLines.join('').includes(secretPart), 'key found in logs');
});

test('every API route needs a key, its automatic HEAD route too; public routes and unknown URLs do not', async () => {
  // The auth and rate-limit hooks are attached to each route as it is added (src/http/auth.ts):
  // a route added without them would answer without a key.
  const routes = t.app.printRoutes({ commonPrefix: false });
  assert.match(routes, /\/api\/v1\/models \(GET, HEAD\)/);
  for (const method of ['GET', 'HEAD'] as const) {
    const res = await t.app.inject({ method, url: '/api/v1/models' });
    assert.equal(res.statusCode, 401, `${method} /api/v1/models without a key`);
    assert.equal(res.headers['x-ratelimit-limit'], undefined, 'refused before any limit is counted');
  }
  const { apiKey } = await createTestAccount(t.services, { plan: 'free' });
  const head = await t.app.inject({ method: 'HEAD', url: '/api/v1/models', headers: { 'x-api-key': apiKey } });
  assert.equal(head.statusCode, 200);
  assert.ok(head.headers['x-ratelimit-remaining'], 'HEAD is counted like GET');
  for (const url of ['/health', '/openapi.json', '/docs/']) {
    const res = await t.app.inject({ method: 'GET', url });
    assert.ok(res.statusCode < 400, `${url}: ${res.statusCode}`);
    assert.equal(res.headers['x-ratelimit-limit'], undefined, `${url} is not rate limited`);
  }
  const unknown = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
  assert.equal(unknown.statusCode, 404);
  assert.match(String(unknown.headers['x-request-id']), /^req_[0-9a-f]{32}$/);
});
