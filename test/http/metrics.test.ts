import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => { t = await createTestApp({ METRICS_TOKEN: 'operator-token-123' }); });
after(() => t.close());

test('/metrics needs the operator token and reports requests, credits, queue and real-time factors', async () => {
  const { apiKey } = await createTestAccount(t.services);
  const gen = await t.app.inject({ method: 'POST', url: '/api/v1/tts/generate', headers: { 'x-api-key': apiKey }, payload: { text: 'Metrics.', voice: 'Aria', model: 'aura-max' } });
  assert.equal(gen.statusCode, 200);
  assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
  assert.equal((await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } })).statusCode, 401);
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer operator-token-123' } });
  assert.equal(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, /text\/plain/);
  assert.match(res.body, /parla_http_requests_total\{method="POST",route="\/api\/v1\/tts\/generate",status="200"\} 1/);
  assert.match(res.body, /parla_credits_debited_total\{model="aura-max",mode="live"\} 16/);
  assert.match(res.body, /parla_engine_queue_depth \d+/);
  assert.match(res.body, /parla_engine_real_time_factor_count\{task="synthesis"\} 1/);
  assert.match(res.body, /parla_http_request_duration_seconds_bucket/);
  assert.match(res.body, /parla_realtime_streams_active 0/);
});
