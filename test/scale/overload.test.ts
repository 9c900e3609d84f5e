// A burst of 200 concurrent TTS requests: every answer is a 200, a 429 or a 503 with the error
// body and Retry-After, and /health keeps answering quickly (decisions #31).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let url: string;
before(async () => {
  t = await createTestApp({ PARLA_WORKERS: '1', PARLA_QUEUE_MAX: '4' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

test('200 concurrent TTS requests: only 200, 429 and 503, all well-formed; health stays responsive', async () => {
  const { apiKey } = await createTestAccount(t.services, { plan: 'enterprise', credits: 10_000_000 });
  const healthTimes: number[] = [];
  let done = false;
  const prober = (async () => {
    while (!done) {
      const started = performance.now();
      const r = await fetch(`${url}/health`);
      healthTimes.push(performance.now() - started);
      assert.equal(r.status, 200);
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  const responses = await Promise.all(
    Array.from({ length: 200 }, async (_, i) => {
      const r = await fetch(`${url}/api/v1/tts/generate`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ text: `Request number ${i} of the burst test.`, voice: 'Aria', model: 'aura-lite' }),
      });
      const body = r.status === 200 ? null : ((await r.json()) as any);
      if (r.status === 200) await r.arrayBuffer();
      return { status: r.status, body, retryAfter: r.headers.get('retry-after'), requestId: r.headers.get('x-request-id') };
    }),
  );
  done = true;
  await prober;
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  assert.deepEqual(Object.keys(counts).filter((s) => !['200', '429', '503'].includes(s)), [], JSON.stringify(counts));
  assert.ok((counts[200] ?? 0) > 0, 'some requests were served');
  assert.ok((counts[429] ?? 0) + (counts[503] ?? 0) > 0, `the burst was limited: ${JSON.stringify(counts)}`);
  for (const r of responses.filter((x) => x.status !== 200)) {
    assert.equal(r.body.success, false);
    assert.ok(['CONCURRENT_LIMIT', 'RATE_LIMIT_EXCEEDED', 'SERVICE_OVERLOADED'].includes(r.body.error.code), r.body.error.code);
    assert.ok(Number(r.retryAfter) >= 1);
    assert.equal(r.body.request_id, r.requestId);
  }
  const sorted = [...healthTimes].sort((x, y) => x - y);
  assert.ok(sorted[Math.floor(sorted.length * 0.9)]! < 1000, `health p90 ${sorted[Math.floor(sorted.length * 0.9)]} ms`);
});
