// Bursts of TTS requests larger than the synthesis queue: past PARLA_QUEUE_MAX waiting requests the
// node answers 503 SERVICE_OVERLOADED with Retry-After and the error body, at once and before any
// credit is held; the rest are served; /health keeps answering quickly (decisions #31). A request's
// own parallel chunks never get it refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { availableParallelism, loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

const WORKERS = 2;
const QUEUE_MAX = 2;

let t: TestApp;
let url: string;
before(async () => {
  t = await createTestApp({ PARLA_WORKERS: String(WORKERS), PARLA_QUEUE_MAX: String(QUEUE_MAX) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
  requestId: string | null;
}

async function call(path: string, apiKey: string, body: object): Promise<Answer> {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = r.status === 200 ? null : ((await r.json()) as any);
  if (r.status === 200) await r.arrayBuffer();
  return { status: r.status, body: json, retryAfter: r.headers.get('retry-after'), requestId: r.headers.get('x-request-id') };
}

// The burst comes from a child process, so this process's event loop (the server's) is measured
// without the client's work on it.
const BURST_CLIENT = `
const { url, path, keys, extra, n } = JSON.parse(process.argv[1]);
const answers = await Promise.all(Array.from({ length: n }, async (_, i) => {
  // Waves of 50, 250 ms apart, all outstanding together: a burst that lasts long enough to measure.
  await new Promise((res) => setTimeout(res, Math.floor(i / 50) * 250));
  const r = await fetch(url + path, { method: 'POST', headers: { 'x-api-key': keys[i % keys.length], 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Request number ' + i + ' of the burst test, a sentence or two long. It asks for a little audio.', voice: 'Aria', model: i % 2 ? 'aura-lite' : 'aura-prime', ...extra }) });
  const body = r.status === 200 ? null : await r.json();
  if (r.status === 200) await r.arrayBuffer();
  return { status: r.status, body, retryAfter: r.headers.get('retry-after'), requestId: r.headers.get('x-request-id') };
}));
process.stdout.write(JSON.stringify(answers));
`;

async function burstFromChild(path: string, keys: string[], extra: object, n: number): Promise<Answer[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', BURST_CLIENT, JSON.stringify({ url, path, keys, extra, n })],
    { maxBuffer: 1 << 24 },
  );
  return JSON.parse(stdout) as Answer[];
}

/** Accounts enough that no account's concurrency limit (enterprise: 50) answers before the queue does. */
async function accounts(n: number): Promise<Array<{ accountId: string; apiKey: string }>> {
  return Promise.all(Array.from({ length: n }, () => createTestAccount(t.services, { plan: 'enterprise', credits: 10_000_000 })));
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function burst(
  path: string,
  extra: object,
): Promise<{ answers: Answer[]; healthMs: number[]; loopDelayMs: { p99: number; max: number } }> {
  const accts = await accounts(5);
  const healthMs: number[] = [];
  let done = false;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const prober = (async () => {
    while (!done) {
      const started = performance.now();
      const r = await fetch(`${url}/health`);
      await r.arrayBuffer();
      healthMs.push(performance.now() - started);
      assert.equal(r.status, 200);
      await new Promise((res) => setTimeout(res, 20));
    }
  })();
  const answers = await burstFromChild(
    path,
    accts.map((a) => a.apiKey),
    extra,
    200,
  );
  done = true;
  await prober;
  loop.disable();
  // Every refused request was refused before credits were held: nothing stays held, and each
  // account paid exactly for its served requests.
  for (const a of accts) {
    const served = (await t.services.store.listUsage(a.accountId, 'live', 100)).reduce((n, row) => n + row.credits, 0);
    assert.equal(await t.services.store.getBalance(a.accountId, 'live'), 10_000_000 - served);
  }
  return { answers, healthMs, loopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 } };
}

function checkAnswers(label: string, answers: Answer[]): void {
  const counts: Record<number, number> = {};
  for (const r of answers) counts[r.status] = (counts[r.status] ?? 0) + 1;
  assert.deepEqual(
    Object.keys(counts).filter((s) => !['200', '503'].includes(s)),
    [],
    `${label}: ${JSON.stringify(counts)}`,
  );
  assert.ok((counts[200] ?? 0) >= WORKERS + QUEUE_MAX, `${label}: at least a queue's worth served: ${JSON.stringify(counts)}`);
  assert.ok((counts[503] ?? 0) > 0, `${label}: the burst was refused in part: ${JSON.stringify(counts)}`);
  for (const r of answers.filter((x) => x.status !== 200)) {
    assert.equal(r.body.success, false);
    assert.equal(r.body.error.code, 'SERVICE_OVERLOADED');
    assert.ok(Number(r.retryAfter) >= 1);
    assert.equal(r.body.request_id, r.requestId);
  }
}

function checkResponsive(label: string, healthMs: number[], loopDelayMs: { p99: number; max: number }): void {
  const p99 = percentile(healthMs, 0.99);
  // The client shares this process (and two cores with other work): its latency is reported;
  // the server's event loop delay is what the bound is about.
  console.log(
    `${label}: /health p50 ${percentile(healthMs, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${healthMs.length} probes; event loop delay p99 ${loopDelayMs.p99.toFixed(1)} ms, max ${loopDelayMs.max.toFixed(1)} ms`,
  );
  assert.ok(healthMs.length >= 3, `${label}: health was probed during the burst`);
  // What the bound guards: no synthesis, decoding or encoding on the loop (one stalls it for
  // hundreds of ms to seconds). 200 ms: a wave of 50 requests arriving together is answered in one
  // turn of the loop, ~2 ms each inside node:test (whose async hooks run for every request), so the
  // loop's p99 measured 85-130 ms on an idle 2-core machine with none of that work on it (stop 35;
  // it was under 100 ms before the service grew). On a machine busy with other work (load above its
  // cores: shared CI, other test files) this process gets a share of a core and every stall
  // stretches: the bound scales.
  const bound = 200 * Math.max(1, loadavg()[0]! / availableParallelism());
  assert.ok(loopDelayMs.p99 < bound, `${label}: event loop delay p99 ${loopDelayMs.p99} ms (bound ${bound} ms, load ${loadavg()[0]})`);
  assert.ok(p99 < 1000, `${label}: health p99 ${p99} ms`);
}

test('200 concurrent /tts/generate past the queue bound: 503 SERVICE_OVERLOADED with Retry-After, the rest 200, health responsive', async () => {
  const { answers, healthMs, loopDelayMs } = await burst('/api/v1/tts/generate', {});
  checkAnswers('generate', answers);
  checkResponsive('generate', healthMs, loopDelayMs);
  assert.equal(t.services.pool.admitted, 0, 'every place was given back');
});

test('200 concurrent /tts/stream past the queue bound: the same', async () => {
  const { answers, healthMs, loopDelayMs } = await burst('/api/v1/tts/stream', { sample_rate: 16000 });
  checkAnswers('stream', answers);
  checkResponsive('stream', healthMs, loopDelayMs);
  assert.equal(t.services.pool.admitted, 0, 'every place was given back');
});

test('one request with more parallel chunks than the queue holds is served, not refused by its own chunks', async () => {
  const [acct] = await accounts(1);
  // Six segments of ~900 characters: three 300-character chunks each, all segments at once, far
  // more tasks than QUEUE_MAX waiting at the same time.
  const segment = Array.from({ length: 15 }, (_, i) => `Sentence ${i + 1} of a segment is here.`).join(' ');
  const text = Array.from({ length: 6 }, () => segment).join('<break time="100ms"/>');
  assert.ok(text.length <= 5000);
  for (const model of ['aura-lite', 'aura-prime']) {
    const r = await call('/api/v1/tts/generate', acct!.apiKey, { text, voice: 'Aria', model });
    assert.equal(r.status, 200, `${model}: ${JSON.stringify(r.body)}`);
  }
});
