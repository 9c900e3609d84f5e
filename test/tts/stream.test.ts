// POST /tts/stream: raw PCM chunks, headers, its own validation rules, time to first byte, and
// billing of a client that goes away (decisions #10, #11, #12, #15, #30).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;
let port: number;

before(async () => {
  t = await createTestApp({ PARLA_WORKERS: '2' });
  key = (await createTestAccount(t.services, { credits: 1_000_000 })).apiKey;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

const stream = (payload: Record<string, unknown>, apiKey = key) =>
  t.app.inject({ method: 'POST', url: '/api/v1/tts/stream', headers: { 'x-api-key': apiKey }, payload });

test('raw 16-bit mono PCM with the interface headers, at the requested rate', async () => {
  for (const rate of [24000, 8000, 44100]) {
    const res = await stream({ text: 'First sentence here. And a second one.', voice: 'Aria', sample_rate: rate });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'audio/pcm');
    assert.equal(res.headers['x-sample-rate'], String(rate));
    assert.equal(res.headers['x-bits-per-sample'], '16');
    assert.equal(res.headers['x-channels'], '1');
    assert.equal(res.headers['x-audio-format'], 'pcm');
    assert.equal(res.headers['transfer-encoding'], 'chunked');
    assert.equal(res.rawPayload.length % 2, 0);
    const seconds = res.rawPayload.length / 2 / rate;
    assert.ok(seconds > 1.5 && seconds < 6, `${rate}: ${seconds}s`);
  }
});

test('eSpeak (aura-lite in German) streams while it synthesizes: the same audio length as /tts/generate', async () => {
  const text = 'Der erste Satz ist hier. Und ein zweiter, etwas länger als der erste.';
  const file = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': key },
    payload: { text, voice: 'Anna', model: 'aura-lite', language: 'de-DE' },
  });
  assert.equal(file.statusCode, 200, file.body);
  const fileSeconds = (file.rawPayload.length - 44) / 2 / 22050;
  for (const rate of [22050, 16000]) {
    const res = await stream({ text, voice: 'Anna', model: 'aura-lite', language: 'de-DE', sample_rate: rate });
    assert.equal(res.statusCode, 200, res.body);
    const seconds = res.rawPayload.length / 2 / rate;
    assert.ok(Math.abs(seconds - fileSeconds) < 0.1, `${rate}: stream ${seconds} s, file ${fileSeconds} s`);
  }
});

test('stream rules: sample rates, pitch only for rapid-flash, 50,000 characters, breaks stripped', async () => {
  const bad = await stream({ text: 'Hi.', voice: 'Aria', sample_rate: 12345 });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().error.code, 'INVALID_SAMPLE_RATE');
  const pitch = await stream({ text: 'Hi.', voice: 'Aria', pitch: 2 });
  assert.equal(pitch.json().error.code, 'INVALID_PITCH');
  assert.match(pitch.json().error.message, /aura-prime/);
  assert.match(pitch.json().error.resolution, /^Remove pitch, stream with model rapid-flash, or use POST \/api\/v1\/tts\/generate/);
  assert.equal((await stream({ text: 'Hi there.', voice: 'Amelia', model: 'rapid-flash', pitch: 3, speed: 1.2 })).statusCode, 200);
  const long = await stream({ text: 'a'.repeat(50001), voice: 'Aria' });
  assert.equal(long.statusCode, 413);
  assert.equal(long.json().error.code, 'TEXT_TOO_LONG');
  const withBreak = await stream({ text: 'One.<break time="3s"/>Two.', voice: 'Aria', sample_rate: 16000 });
  assert.equal(withBreak.statusCode, 200);
  assert.ok(withBreak.rawPayload.length / 32000 < 2.5, 'the 3 s break was stripped');
  assert.equal((await stream({ text: 'One <laugh> two.', voice: 'Aria' })).statusCode, 200, 'expression tags are honoured');
  assert.equal(
    (await stream({ text: 'One <laugh> two.', voice: 'Aria', model: 'rapid-max' })).json().error.code,
    'EXPRESSION_NOT_SUPPORTED',
  );
});

function post(body: object): Promise<{ res: http.IncomingMessage; req: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/tts/stream',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
      },
      (res) => resolve({ res, req }),
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const sentences = (n: number) =>
  Array.from({ length: n }, (_, i) => `This is sentence number ${i + 1} of a long text that is streamed.`).join(' ');

test('audio starts flowing after the first sentence, long before the whole text is done', async () => {
  const started = performance.now();
  const { res } = await post({ text: sentences(12), voice: 'Aria', sample_rate: 16000 });
  let first = 0;
  let bytes = 0;
  for await (const chunk of res) {
    if (!first) first = performance.now() - started;
    bytes += (chunk as Buffer).length;
  }
  const total = performance.now() - started;
  assert.ok(bytes / 32000 > 20, `${bytes / 32000}s of audio`);
  assert.ok(first < total / 3, `first byte after ${first.toFixed(0)} ms of ${total.toFixed(0)} ms`);
});

test('a client that goes away stops synthesis and pays only for the sentences sent', async () => {
  const acct = await createTestAccount(t.services, { credits: 100_000 });
  const text = sentences(60);
  const fullPrice = [...text].length;
  const { res, req } = await new Promise<{ res: http.IncomingMessage; req: http.ClientRequest }>((resolve, reject) => {
    const r = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/tts/stream',
        headers: { 'x-api-key': acct.apiKey, 'content-type': 'application/json' },
      },
      (response) => resolve({ res: response, req: r }),
    );
    r.on('error', reject);
    r.end(JSON.stringify({ text, voice: 'Aria', sample_rate: 16000 }));
  });
  assert.equal(res.statusCode, 200);
  // A sentence leaves in ~0.1 s pieces (decision #100) and is billed once all of it is written:
  // read past the first two (about 4 s of audio each) before going away.
  await new Promise<void>((resolve) => {
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes < 10 * 32000) return;
      res.off('data', onData);
      resolve();
    };
    res.on('data', onData);
  });
  req.destroy();
  res.destroy();
  let used = 0;
  for (let i = 0; i < 100; i++) {
    const rows = await t.services.store.listUsage(acct.accountId, 'live', 5);
    if (rows.length) {
      used = rows[0]!.credits;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(used > 0, 'the sentences sent were billed');
  assert.ok(used < fullPrice / 2, `billed ${used} of ${fullPrice}`);
  assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 100_000 - used);
});

test('the X-Credits-Used trailer, declared in Trailer, gives what the usage record charged', async () => {
  const acct = await createTestAccount(t.services, { credits: 100_000 });
  const text = sentences(3);
  const { res } = await new Promise<{ res: http.IncomingMessage }>((resolve, reject) => {
    const r = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/tts/stream',
        headers: { 'x-api-key': acct.apiKey, 'content-type': 'application/json' },
      },
      (response) => resolve({ res: response }),
    );
    r.on('error', reject);
    r.end(JSON.stringify({ text, voice: 'Aria', sample_rate: 16000 }));
  });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers.trailer?.toLowerCase(), 'x-credits-used');
  assert.equal(res.headers['transfer-encoding'], 'chunked');
  let bytes = 0;
  for await (const chunk of res) bytes += (chunk as Buffer).length;
  assert.ok(bytes > 0);
  const used = Number(res.trailers['x-credits-used']);
  assert.equal(used, Number(res.headers['x-credits-reserved']), 'a stream sent in full costs what was reserved');
  const rows = await t.services.store.listUsage(acct.accountId, 'live', 5);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.credits, used);
  assert.equal(rows[0]!.characters, [...text].length, 'the usage record counts the characters sent');
  assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 100_000 - used);
});

test('clients that go away mid-stream do not upset the trailer of the next stream', async () => {
  for (let i = 0; i < 3; i++) {
    const { res, req } = await post({ text: sentences(40), voice: 'Aria', sample_rate: 16000 });
    assert.equal(res.statusCode, 200);
    await new Promise<void>((resolve) => res.once('data', () => resolve()));
    req.destroy();
    res.destroy();
  }
  const { res } = await post({ text: 'Still here.', voice: 'Aria', sample_rate: 16000 });
  assert.equal(res.statusCode, 200);
  for await (const _ of res) void _;
  assert.ok(Number(res.trailers['x-credits-used']) > 0);
});
