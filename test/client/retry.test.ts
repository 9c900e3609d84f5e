// The client's retry rules against a local HTTP server that answers scripted statuses, with an
// injected clock and random source so the schedule itself is checked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ParlaClient, ParlaError, retryDelay } from '../../packages/client/src/index.js';

type Step = { status: number; headers?: Record<string, string>; body?: unknown } | 'hangup';
let script: Step[] = [];
let hits = 0;
let server: http.Server;
let url: string;

before(async () => {
  server = http.createServer((req, res) => {
    hits++;
    const step = script.shift() ?? { status: 200, body: { credits: 1, used_this_month: 0, plan: 'pro', renewal_date: '2027-01-01' } };
    if (step === 'hangup') return req.socket.destroy();
    const body = step.body ?? {
      success: false,
      error: {
        code: step.status === 429 ? 'RATE_LIMIT_EXCEEDED' : `E${step.status}`,
        message: `status ${step.status}`,
        category: 'test',
        resolution: 'do something',
        details: { provided: 'x' },
      },
      request_id: `req_${hits}`,
      timestamp: Date.now() / 1000,
    };
    res.writeHead(step.status, { 'content-type': 'application/json', 'x-request-id': `req_${hits}`, ...(step.headers ?? {}) });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

function client(random = 0.5) {
  const sleeps: number[] = [];
  const c = new ParlaClient({
    apiKey: 'svc_test_x',
    baseUrl: url,
    retryEnvironment: {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => random,
    },
  });
  return { c, sleeps };
}

function run(steps: Step[]) {
  script = [...steps];
  hits = 0;
}

test('500 is retried with 1 s, 2 s, 4 s plus jitter, then succeeds', async () => {
  run([{ status: 500 }, { status: 500 }, { status: 500 }]);
  const { c, sleeps } = client(0.25);
  const credits = await c.credits.get();
  assert.equal(credits.plan, 'pro');
  assert.deepEqual(sleeps, [1250, 2250, 4250]);
  assert.equal(hits, 4);
});

test('500 four times: gives up after three retries with the last error', async () => {
  run([{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }]);
  const { c, sleeps } = client(0);
  await assert.rejects(c.credits.get(), (e: ParlaError) => e.status === 500 && e.code === 'E500');
  assert.deepEqual(sleeps, [1000, 2000, 4000]);
  assert.equal(hits, 4);
});

test('jitter stays within [0, 1) s', () => {
  for (const r of [0, 0.3, 0.999999]) {
    const d = retryDelay({ kind: 'status', status: 500, retryAfter: null }, 1, {}, () => r)!;
    assert.ok(d >= 2000 && d < 3000);
  }
});

test('429 waits exactly Retry-After seconds', async () => {
  run([
    { status: 429, headers: { 'retry-after': '3' } },
    { status: 429, headers: { 'retry-after': '1' } },
  ]);
  const { c, sleeps } = client(0.9);
  await c.credits.get();
  assert.deepEqual(sleeps, [3000, 1000]);
});

test('503 waits with backoff, at least Retry-After', async () => {
  run([{ status: 503, headers: { 'retry-after': '7' } }, { status: 503 }]);
  const { c, sleeps } = client(0.5);
  await c.credits.get();
  assert.deepEqual(sleeps, [7000, 2500]);
});

test('400, 401, 402, 403 are never retried and carry the error body', async () => {
  for (const status of [400, 401, 402, 403, 404, 413, 422]) {
    run([{ status }]);
    const { c, sleeps } = client();
    await assert.rejects(c.credits.get(), (e: ParlaError) => {
      assert.ok(e instanceof ParlaError);
      assert.equal(e.status, status);
      assert.equal(e.code, `E${status}`);
      assert.equal(e.category, 'test');
      assert.equal(e.resolution, 'do something');
      assert.deepEqual(e.details, { provided: 'x' });
      assert.equal(e.requestId, 'req_1');
      return true;
    });
    assert.deepEqual(sleeps, []);
    assert.equal(hits, 1, `status ${status} was retried`);
  }
});

test('a dropped connection is retried like a 500', async () => {
  run(['hangup', 'hangup']);
  const { c, sleeps } = client(0);
  await c.credits.get();
  assert.deepEqual(sleeps, [1000, 2000]);
  assert.equal(hits, 3);
});

test('a non-JSON error is still a ParlaError', async () => {
  run([{ status: 418, body: 'teapot' as unknown }]);
  const { c } = client();
  await assert.rejects(c.credits.get(), (e: ParlaError) => e.status === 418 && e.code === 'UNEXPECTED_RESPONSE');
});

test('no API key: a clear error before any request', async () => {
  run([]);
  const c = new ParlaClient({ baseUrl: url, apiKey: '' });
  await assert.rejects(c.usage.get(), (e: ParlaError) => e.code === 'AUTH_MISSING_API_KEY');
  assert.equal(hits, 0);
});
