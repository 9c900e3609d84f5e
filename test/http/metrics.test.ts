// Prometheus metrics: the operator token on the API port, a port of its own, and what is counted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await createTestApp({ METRICS_TOKEN: 'operator-token-123' });
});
after(() => t.close());

const scrape = async (app: TestApp) => {
  const res = await app.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer operator-token-123' } });
  assert.equal(res.statusCode, 200);
  return res.body;
};

test('/metrics needs the operator token and reports requests, credits, queue and real-time factors', async () => {
  const { apiKey } = await createTestAccount(t.services);
  const gen = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': apiKey },
    payload: { text: 'Metrics.', voice: 'Aria', model: 'aura-max' },
  });
  assert.equal(gen.statusCode, 200);
  assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
  assert.equal((await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } })).statusCode, 401);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': apiKey } })).statusCode,
    401,
    'an API key is not the operator token',
  );
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer operator-token-123' } });
  assert.equal(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, /text\/plain/);
  assert.match(res.body, /parla_http_requests_total\{method="POST",route="\/api\/v1\/tts\/generate",status="200"\} 1/);
  assert.match(res.body, /parla_credits_debited_total\{model="aura-max",mode="live"\} 16/);
  assert.match(res.body, /parla_engine_queue_depth \d+/);
  assert.match(res.body, /parla_engine_tasks_running \d+/);
  assert.match(res.body, /parla_engine_real_time_factor_count\{task="synthesis",engine="(flite|espeak|studio-festival|studio-flite)"\} 1/);
  assert.match(res.body, /parla_http_request_duration_seconds_bucket/);
  assert.match(res.body, /parla_realtime_streams_active 0/);
});

test('requests are labelled by route pattern and status, never by raw URL', async () => {
  const { apiKey } = await createTestAccount(t.services, { plan: 'free' });
  for (let i = 0; i < 11; i++) await t.app.inject({ method: 'GET', url: `/api/v1/usage?n=${i}`, headers: { 'x-api-key': apiKey } });
  await t.app.inject({ method: 'GET', url: '/api/v1/no-such-thing-123' });
  const body = await scrape(t);
  assert.match(body, /parla_http_requests_total\{method="GET",route="\/api\/v1\/usage",status="200"\} 10/);
  assert.match(body, /parla_http_requests_total\{method="GET",route="\/api\/v1\/usage",status="429"\} 1/);
  assert.match(body, /route="unmatched",status="404"/);
  assert.doesNotMatch(body, /no-such-thing|n=\d/);
});

test('request latency is a cumulative Prometheus histogram per route, printed as prom-client prints its own', async () => {
  const { default: client } = await import('prom-client');
  const { Metrics } = await import('../../src/http/metrics.js');
  const metrics = new Metrics(t.services.pool);
  const reference = new client.Registry();
  const histogram = new client.Histogram({
    name: 'parla_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [reference],
  });
  const seen: Array<[string, string, number, number]> = [
    ['GET', '/api/v1/models', 200, 0.003],
    ['GET', '/api/v1/models', 200, 0.005],
    ['GET', '/api/v1/models', 429, 0.0071],
    ['POST', '/api/v1/tts/generate', 200, 1.5],
    ['POST', '/api/v1/tts/generate', 402, 0.02],
    ['POST', '/api/v1/tts/generate', 200, 45],
  ];
  for (const [method, route, status, seconds] of seen) {
    metrics.observeRequest(method, route, status, seconds);
    histogram.observe({ method, route }, seconds);
  }
  const lines = (text: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('parla_http_request_duration_seconds'))
      .sort();
  const ours = lines(await metrics.registry.metrics());
  assert.equal(ours.length, 2 * 15);
  assert.deepEqual(ours, lines(await reference.metrics()));
  assert.ok(ours.includes('parla_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/v1/models"} 2'));
  assert.ok(ours.includes('parla_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/api/v1/tts/generate"} 3'));
  const body = await metrics.registry.metrics();
  assert.match(body, /parla_http_requests_total\{method="GET",route="\/api\/v1\/models",status="200"\} 2/);
  assert.match(body, /parla_http_requests_total\{method="POST",route="\/api\/v1\/tts\/generate",status="402"\} 1/);
  // Read twice, the same numbers (reading does not add or reset anything).
  const http = (text: string) => text.split('\n').filter((l) => l.startsWith('parla_http_'));
  assert.deepEqual(http(await metrics.registry.metrics()), http(body));
  metrics.registry.resetMetrics();
  assert.doesNotMatch(await metrics.registry.metrics(), /parla_http_request(s_total|_duration_seconds_count)\{/);
});

test('the real-time factor per engine, as other modules report it', async () => {
  t.services.metrics.observeSynthesis(2, 0.5, 'espeak');
  t.services.metrics.observeRecognition(4, 1, 'pocketsphinx');
  t.services.metrics.observeRecognition(0, 1, 'pocketsphinx'); // no audio: nothing to divide by, not recorded
  const body = await scrape(t);
  assert.match(body, /parla_engine_real_time_factor_sum\{task="synthesis",engine="espeak"\} 0.25/);
  assert.match(body, /parla_engine_real_time_factor_count\{task="recognition",engine="pocketsphinx"\} 1/);
  assert.match(body, /parla_engine_real_time_factor_bucket\{le="0.3",task="recognition",engine="pocketsphinx"\} 1/);
});

test('without a token /metrics is not on the API port; METRICS_PORT serves it on its own', async () => {
  const plain = await createTestApp();
  try {
    const res = await plain.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer anything' } });
    assert.equal(res.statusCode, 404);
    const server = await plain.services.metrics.listen(0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await plain.app.inject({ method: 'GET', url: '/health' });
      const scraped = await fetch(`${base}/metrics`);
      assert.equal(scraped.status, 200);
      assert.match(scraped.headers.get('content-type') ?? '', /text\/plain; version=0.0.4/);
      const text = await scraped.text();
      assert.match(text, /parla_http_requests_total\{method="GET",route="\/health",status="200"\} 1/);
      assert.match(text, /parla_process_cpu_seconds_total/);
      assert.equal((await fetch(`${base}/other`)).status, 404);
      assert.equal((await fetch(`${base}/metrics`, { method: 'POST' })).status, 404);
      // A taken port is an error at startup, not a hang.
      await assert.rejects(plain.services.metrics.listen((server.address() as AddressInfo).port, '127.0.0.1'), /EADDRINUSE/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  } finally {
    await plain.close();
  }
});
