// Rate limits and concurrency slots over HTTP (decisions #26), with the memory limiter.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let release: (() => void) | null = null;
/** Slots the account held at the moment each answer of /api/v1/test-end was written. */
const heldAtEnd: number[] = [];
before(async () => {
  t = await createTestApp(
    {},
    {
      beforeReady(app) {
        // A request that stays in flight until the test lets it go.
        app.get('/api/v1/test-slow', async () => {
          await new Promise<void>((r) => (release = r));
          return { ok: true };
        });
        // Notes how many slots the account holds at the instant its answer is written (end()).
        app.get('/api/v1/test-end', async (request, reply) => {
          const end = reply.raw.end.bind(reply.raw) as (...args: unknown[]) => unknown;
          (reply.raw as unknown as { end: (...args: unknown[]) => unknown }).end = (...args: unknown[]) => {
            void t.services.limiter.slotsInUse(request.auth.account.id).then((n) => heldAtEnd.push(n));
            return end(...args);
          };
          return { ok: true };
        });
        app.get('/api/v1/test-fail', async () => {
          throw new Error('a handler that breaks');
        });
      },
    },
  );
});
after(() => t.close());

test('per-minute limit: headers count down, then 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
  const { apiKey } = await createTestAccount(t.services, { plan: 'free' });
  const get = () => t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } });
  for (let i = 0; i < 10; i++) {
    const res = await get();
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-ratelimit-limit'], '10');
    assert.equal(res.headers['x-ratelimit-remaining'], String(9 - i));
    assert.ok(Number(res.headers['x-ratelimit-reset']) > Date.now() / 1000);
    assert.match(String(res.headers.ratelimit), new RegExp(`^"minute";r=${9 - i};t=(59|60), "hour";r=${99 - i};t=(3599|3600)$`));
    assert.equal(res.headers['ratelimit-policy'], '"minute";q=10;w=60, "hour";q=100;w=3600');
    if (i === 0) assert.deepEqual(res.json().rate_limits, { requests_per_minute: 10, requests_per_hour: 100 });
  }
  const refused = await get();
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.json().error.code, 'RATE_LIMIT_EXCEEDED');
  assert.equal(refused.json().error.category, 'rate_limit');
  const retryAfter = Number(refused.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60);
  assert.equal(refused.headers['x-ratelimit-remaining'], '0');
  assert.deepEqual(refused.json().error.details, { limit: 10, window_seconds: 60 });
  // The refusal reports both windows, and was not counted in the hour window.
  assert.match(String(refused.headers.ratelimit), /^"minute";r=0;t=\d+, "hour";r=90;t=\d+$/);
  assert.equal(refused.headers['ratelimit-policy'], '"minute";q=10;w=60, "hour";q=100;w=3600');
});

test('error responses of authenticated routes carry the rate-limit fields too', async () => {
  const { apiKey } = await createTestAccount(t.services, { plan: 'free' });
  const bad = await t.app.inject({ method: 'POST', url: '/api/v1/tts/generate', headers: { 'x-api-key': apiKey }, payload: { text: '' } });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.headers['x-ratelimit-limit'], '10');
  assert.equal(bad.headers['x-ratelimit-remaining'], '9');
  assert.ok(bad.headers.ratelimit && bad.headers['ratelimit-policy']);
  // Unauthenticated answers and unknown routes are not counted and carry none.
  const anon = await t.app.inject({ method: 'GET', url: '/api/v1/usage' });
  assert.equal(anon.statusCode, 401);
  assert.equal(anon.headers['x-ratelimit-limit'], undefined);
  const missing = await t.app.inject({ method: 'GET', url: '/api/v1/nope', headers: { 'x-api-key': apiKey } });
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.headers['x-ratelimit-limit'], undefined);
});

test('a request that fails frees its slot', async () => {
  const { apiKey } = await createTestAccount(t.services, { plan: 'free' });
  const failed = await t.app.inject({ method: 'GET', url: '/api/v1/test-fail', headers: { 'x-api-key': apiKey } });
  assert.equal(failed.statusCode, 500);
  assert.equal(failed.headers['x-ratelimit-remaining'], '9');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } })).statusCode, 200);
});

test('health is never rate limited', async () => {
  for (let i = 0; i < 15; i++) assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
});

test('concurrency: the free plan runs one request at a time; the slot is released after', async () => {
  const { apiKey } = await createTestAccount(t.services, { plan: 'free' });
  const slow = t.app.inject({ method: 'GET', url: '/api/v1/test-slow', headers: { 'x-api-key': apiKey } });
  while (!release) await new Promise((r) => setTimeout(r, 5));
  const second = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } });
  assert.equal(second.statusCode, 429);
  assert.equal(second.json().error.code, 'CONCURRENT_LIMIT');
  assert.ok(Number(second.headers['retry-after']) >= 1);
  release!();
  release = null;
  assert.equal((await slow).statusCode, 200);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': apiKey } })).statusCode, 200);
});

test('a whole answer frees its slot before it is written: a client never sees its answer while the slot is held', async () => {
  // A client at its concurrency limit may send its next request (to this node or another) the
  // moment it has the answer, so the slot must be free before the answer leaves, not on 'close'.
  const { apiKey } = await createTestAccount(t.services, { plan: 'free' });
  heldAtEnd.length = 0;
  for (let i = 0; i < 3; i++)
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/test-end', headers: { 'x-api-key': apiKey } })).statusCode, 200);
  assert.deepEqual(heldAtEnd, [0, 0, 0]);
});

test('with Redis too, a whole answer is written only once Redis has freed its slot', async () => {
  // Redis releases go with the event-loop turn's batch; the answer must wait for that batch's reply.
  const { default: Fastify } = await import('fastify');
  const { randomUUID } = await import('node:crypto');
  const { requestIdPlugin } = await import('../../src/http/request-id.js');
  const { errorHandlerPlugin } = await import('../../src/http/error-handler.js');
  const { authPlugin } = await import('../../src/http/auth.js');
  const { rateLimitPlugin } = await import('../../src/http/rate-limit.js');
  const { RedisLimiter } = await import('../../src/limits/redis-limiter.js');
  const limiter = await RedisLimiter.connect('redis://127.0.0.1:6379', undefined, `parla-test-${randomUUID()}:`);
  const app = Fastify();
  await app.register(requestIdPlugin);
  await app.register(errorHandlerPlugin);
  await app.register(authPlugin, { authenticator: t.services.authenticator });
  await app.register(rateLimitPlugin, { limiter, config: t.services.config });
  const held: number[] = [];
  app.get('/api/v1/end', async (request, reply) => {
    const end = reply.raw.end.bind(reply.raw) as (...args: unknown[]) => unknown;
    (reply.raw as unknown as { end: (...args: unknown[]) => unknown }).end = (...args: unknown[]) => {
      void limiter.slotsInUse(request.auth.account.id).then((n) => held.push(n));
      return end(...args);
    };
    return { ok: true };
  });
  await app.ready();
  try {
    const { apiKey } = await createTestAccount(t.services, { plan: 'pro' });
    for (let i = 0; i < 3; i++)
      assert.equal((await app.inject({ method: 'GET', url: '/api/v1/end', headers: { 'x-api-key': apiKey } })).statusCode, 200);
    // Several at once: their releases share one batch.
    const all = await Promise.all([0, 1].map(() => app.inject({ method: 'GET', url: '/api/v1/end', headers: { 'x-api-key': apiKey } })));
    assert.deepEqual(
      all.map((r) => r.statusCode),
      [200, 200],
    );
    while (held.length < 5) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(held.slice(0, 3), [0, 0, 0]);
    // The second of the pair may still be in flight when the first is written: never more than it.
    assert.ok(
      held.slice(3).every((n) => n <= 1),
      `slots held at the end of concurrent answers: ${held.slice(3).join(', ')}`,
    );
  } finally {
    await app.close();
    await limiter.close();
  }
});

test('a client that disconnects mid-request frees its slot', async () => {
  const { apiKey, accountId } = await createTestAccount(t.services, { plan: 'free' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (t.app.server.address() as AddressInfo).port;
  const req = http.get({ host: '127.0.0.1', port, path: '/api/v1/test-slow', headers: { 'x-api-key': apiKey } });
  req.on('error', () => undefined);
  while (!release) await new Promise((r) => setTimeout(r, 5));
  assert.equal(await t.services.limiter.slotsInUse(accountId), 1);
  req.destroy();
  for (let i = 0; i < 50 && (await t.services.limiter.slotsInUse(accountId)) > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(await t.services.limiter.slotsInUse(accountId), 0);
  release!();
  release = null;
});

test('a client that drops an upload halfway frees its slot', async () => {
  const { apiKey, accountId } = await createTestAccount(t.services, { plan: 'free' });
  await t.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => undefined);
  const port = (t.app.server.address() as AddressInfo).port;
  const boundary = 'parlaboundary';
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v1/stt/transcribe',
    headers: { 'x-api-key': apiKey, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': 1_000_000 },
  });
  req.on('error', () => undefined);
  // Half a WAV upload, then nothing: the request body is still being read when the client goes.
  req.write(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.wav"\r\ncontent-type: audio/wav\r\n\r\n`);
  req.write(Buffer.alloc(64 * 1024));
  for (let i = 0; i < 100 && (await t.services.limiter.slotsInUse(accountId)) === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(await t.services.limiter.slotsInUse(accountId), 1, 'the upload holds a slot while it is read');
  req.destroy();
  for (let i = 0; i < 50 && (await t.services.limiter.slotsInUse(accountId)) > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(await t.services.limiter.slotsInUse(accountId), 0);
});

test('a request longer than its slot lease keeps the slot (renewed), and frees it at the end', async () => {
  // The same plugins as the app, on a lease of 300 ms instead of 30 s, with the real services.
  const { default: Fastify } = await import('fastify');
  const { requestIdPlugin } = await import('../../src/http/request-id.js');
  const { errorHandlerPlugin } = await import('../../src/http/error-handler.js');
  const { authPlugin } = await import('../../src/http/auth.js');
  const { rateLimitPlugin } = await import('../../src/http/rate-limit.js');
  const app = Fastify();
  await app.register(requestIdPlugin);
  await app.register(errorHandlerPlugin);
  await app.register(authPlugin, { authenticator: t.services.authenticator });
  await app.register(rateLimitPlugin, { limiter: t.services.limiter, config: t.services.config, leaseMs: 300 });
  app.get('/api/v1/long', async () => {
    await new Promise((r) => setTimeout(r, 1000));
    return { ok: true };
  });
  app.get('/api/v1/quick', async () => ({ ok: true }));
  await app.ready();
  try {
    const { apiKey, accountId } = await createTestAccount(t.services, { plan: 'free' });
    const long = app.inject({ method: 'GET', url: '/api/v1/long', headers: { 'x-api-key': apiKey } });
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(await t.services.limiter.slotsInUse(accountId), 1, 'the lease was renewed past its 300 ms');
    const refused = await app.inject({ method: 'GET', url: '/api/v1/quick', headers: { 'x-api-key': apiKey } });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'CONCURRENT_LIMIT');
    assert.equal((await long).statusCode, 200);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await t.services.limiter.slotsInUse(accountId), 0);
    assert.equal((await app.inject({ method: 'GET', url: '/api/v1/quick', headers: { 'x-api-key': apiKey } })).statusCode, 200);
  } finally {
    await app.close();
  }
});

test('a client that leaves while its slot is being taken (Redis silent) does not keep the slot', async () => {
  const { default: Fastify } = await import('fastify');
  const { randomUUID } = await import('node:crypto');
  const { requestIdPlugin } = await import('../../src/http/request-id.js');
  const { errorHandlerPlugin } = await import('../../src/http/error-handler.js');
  const { authPlugin } = await import('../../src/http/auth.js');
  const { rateLimitPlugin } = await import('../../src/http/rate-limit.js');
  const { RedisLimiter } = await import('../../src/limits/redis-limiter.js');
  const { RedisRelay } = await import('../limits/redis-relay.js');
  const relay = new RedisRelay();
  const limiter = await RedisLimiter.connect(await relay.start(), undefined, `parla-test-${randomUUID()}:`);
  const app = Fastify();
  await app.register(requestIdPlugin);
  await app.register(errorHandlerPlugin);
  await app.register(authPlugin, { authenticator: t.services.authenticator });
  await app.register(rateLimitPlugin, { limiter, config: t.services.config, leaseMs: 600 });
  app.get('/api/v1/quick', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { apiKey, accountId } = await createTestAccount(t.services, { plan: 'free' });
    relay.frozen = true; // every Redis command now waits for its timeout, then falls back to this node
    const req = http.get({
      host: '127.0.0.1',
      port: (app.server.address() as AddressInfo).port,
      path: '/api/v1/quick',
      headers: { 'x-api-key': apiKey },
    });
    req.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 300));
    req.destroy();
    // hit and acquire each wait out the 1 s command timeout; then the slot comes from the fallback.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await limiter.slotsInUse(accountId), 0, 'the slot was released, not renewed forever');
  } finally {
    relay.frozen = false;
    await app.close();
    await limiter.close();
    await relay.stop();
  }
});
