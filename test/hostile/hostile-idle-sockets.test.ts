// Issue 30, item 4: live sockets that send no audio must not hold the recognizers. Account A opens
// more Deepgram live sockets than the node has decoders and sends only KeepAlive; account B's batch
// transcription still answers (it hung 70 s+ before, with every decoder held for up to an hour).
// Also: a native socket that sends nothing is closed after the idle bound (4008); audio that resumes
// after the recognizer was given back is still transcribed on one continuous timeline; when no
// recognizer frees up for resumed audio the stream ends with SERVICE_OVERLOADED (close 1013) and
// bills only what was recognized; a batch request waiting for a decoder is refused with 503 and
// Retry-After after PARLA_STT_DECODER_WAIT_SECONDS, never left hanging.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, soxConcat } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { RealtimeServer } from '../../src/realtime/server.js';
import type { SttStream } from '../../src/engines/engine.js';

const DECODERS = 2;
const IDLE_SECONDS = 3;
const DECODER_WAIT_SECONDS = 4;

let t: TestApp;
let rt: RealtimeServer;
let apiPort: number;
let rtPort: number;
let first: Int16Array;
let second: Int16Array;
let wavBytes: Buffer;

before(async () => {
  t = await createTestApp({
    PARLA_STT_DECODERS: String(DECODERS),
    REALTIME_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS),
    REALTIME_RECOGNIZER_IDLE_SECONDS: '1',
    PARLA_STT_DECODER_WAIT_SECONDS: String(DECODER_WAIT_SECONDS),
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  apiPort = (t.app.server.address() as AddressInfo).port;
  rt = new RealtimeServer(t.services, { recognizerWaitMs: 1500 });
  rtPort = await rt.listen(0, '127.0.0.1');
  const pcmOf = (file: string) => float32ToInt16(decodeWav(readFileSync(file)).channels[0]!);
  first = pcmOf(soxConcat([flite('Good morning, the meeting starts at nine.')], 0.5));
  second = pcmOf(soxConcat([flite('Please bring the quarterly report.')], 0.5));
  wavBytes = readFileSync(flite('The weather is fine today.'));
  await t.services.registry.whenReady();
});
after(async () => {
  await rt.close();
  await t.close();
});

const bytesOf = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sock {
  ws: WebSocket;
  messages: any[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
}

function sock(url: string, opts: WebSocket.ClientOptions): Sock {
  const ws = new WebSocket(url, opts);
  const messages: any[] = [];
  ws.on('message', (d, bin) => {
    if (!bin) messages.push(JSON.parse(d.toString()));
  });
  ws.on('error', () => undefined);
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
  opened.catch(() => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return { ws, messages, opened, closed };
}

const deepgram = (key: string) =>
  sock(`ws://127.0.0.1:${apiPort}/v1/listen?model=base&encoding=linear16&sample_rate=16000&interim_results=false`, {
    headers: { Authorization: `Token ${key}` },
  });
const native = (key: string, q: Record<string, string> = {}) =>
  sock(
    `wss://127.0.0.1:${rtPort}/api/v1/stt/realtime/stream?${new URLSearchParams({ api_key: key, interim_results: 'false', endpointing: '300', ...q })}`,
    { ca: rt.cert },
  );

/** Sends audio at twice real time in 100 ms frames, with KeepAlive beside it. */
async function sendAudio(s: Sock, pcm: Int16Array): Promise<void> {
  const b = bytesOf(pcm);
  for (let i = 0; i < b.length; i += 3200) {
    s.ws.send(b.subarray(i, i + 3200));
    await sleep(50);
  }
}

async function transcribeBatch(key: string): Promise<{ status: number; ms: number; retryAfter: string | undefined; body: any }> {
  const { body, contentType } = await multipart(wavBytes, { model: 'cipher-fast' });
  const t0 = Date.now();
  const res = await fetch(`http://127.0.0.1:${apiPort}/api/v1/stt/transcribe`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': contentType },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, ms: Date.now() - t0, retryAfter: res.headers.get('retry-after') ?? undefined, body: await res.json() };
}

/**
 * Takes every decoder of the profile, as other work would: each attempt waits in line up to the
 * decoder wait bound; an idle stream gives its decoder back after its queued audio is recognized,
 * which on a loaded machine may take a few attempts. Fails if a decoder stays held.
 */
async function takeAll(): Promise<SttStream[]> {
  const engine = t.services.registry.sttBinding('cipher-fast')!.engine;
  const got: SttStream[] = [];
  const deadline = Date.now() + 60_000;
  while (got.length < DECODERS) {
    try {
      got.push(await engine.openStream({ language: 'en', profile: 'fast', keywords: [] }));
    } catch (err) {
      if (Date.now() > deadline) {
        await Promise.all(got.map((g) => g.close()));
        throw new Error(`a decoder is still held by the idle socket: ${(err as Error).message}`);
      }
    }
  }
  return got;
}

const keepAlive = (socks: Sock[]) =>
  setInterval(() => socks.forEach((s) => s.ws.readyState === s.ws.OPEN && s.ws.send(JSON.stringify({ type: 'KeepAlive' }))), 500);

test("KeepAlive-only Deepgram sockets of one account (twice as many as decoders) leave the decoders to another account's batch request", async () => {
  const a = await createTestAccount(t.services);
  const b = await createTestAccount(t.services);
  const socks = Array.from({ length: DECODERS * 2 }, () => deepgram(a.apiKey));
  const timer = keepAlive(socks);
  try {
    // Every socket gets in: the first ones give their recognizer back after a second without audio.
    await Promise.all(socks.map((s) => s.opened));
    await sleep(1500);
    const res = await transcribeBatch(b.apiKey);
    // Had the sockets kept their decoders, this would be 503 after the wait bound (or, before the
    // bound existed, no answer at all).
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.text, /weather/i);
    assert.ok(res.ms < 30_000, `answered in ${res.ms} ms`);
    // The sockets are still open (KeepAlive is honoured), and cost nothing.
    assert.ok(socks.every((s) => s.ws.readyState === s.ws.OPEN));
  } finally {
    clearInterval(timer);
    for (const s of socks) s.ws.send(JSON.stringify({ type: 'CloseStream' }));
    await Promise.all(socks.map((s) => s.closed));
  }
  assert.equal(
    await t.services.billing.balance(await t.services.authenticator.authenticate(a.apiKey)),
    100_000,
    'no audio, nothing billed',
  );
});

test('a native socket that sends nothing is closed after REALTIME_IDLE_TIMEOUT_SECONDS with 4008', async () => {
  const a = await createTestAccount(t.services);
  const s = native(a.apiKey);
  await s.opened;
  const t0 = Date.now();
  const closed = await s.closed;
  const ms = Date.now() - t0;
  assert.equal(closed.code, 4008);
  assert.ok(ms >= IDLE_SECONDS * 1000 - 300 && ms < IDLE_SECONDS * 1000 + 5000, `closed after ${ms} ms`);
  assert.equal(s.messages.at(-1)?.type, 'Summary');
});

test('audio that resumes after the recognizer was given back is transcribed, on one continuous timeline', async () => {
  const a = await createTestAccount(t.services);
  const s = native(a.apiKey);
  await s.opened;
  const timer = keepAlive([s]);
  const holders: SttStream[] = [];
  try {
    await sendAudio(s, first);
    // Well past the recognizer's idle release: both decoders can be taken by someone else now.
    await sleep(2500);
    holders.push(...(await takeAll()));
    for (const h of holders.splice(0)) await h.close();
    await sendAudio(s, second);
    s.ws.send(JSON.stringify({ type: 'CloseStream' }));
    await s.closed;
  } finally {
    clearInterval(timer);
    for (const h of holders) await h.close();
    s.ws.terminate();
  }
  const finals = s.messages.filter((m) => m.type === 'Results' && m.is_final && m.channel.alternatives[0].transcript);
  const text = finals
    .map((m) => m.channel.alternatives[0].transcript)
    .join(' ')
    .toLowerCase();
  assert.match(text, /morning|meeting|nine/, text);
  assert.match(text, /quarterly|report|bring/, text);
  const firstSeconds = first.length / 16000;
  const late = finals.filter((m) => /quarterly|report|bring/i.test(m.channel.alternatives[0].transcript));
  assert.ok(late.length > 0);
  for (const m of late) {
    assert.ok(
      m.start >= firstSeconds - 0.05,
      `the resumed audio's result starts at ${m.start} s, after the first ${firstSeconds} s of audio`,
    );
    for (const w of m.channel.alternatives[0].words)
      assert.ok(w.start >= firstSeconds - 0.05 && w.end <= firstSeconds + second.length / 16000 + 0.05, JSON.stringify(w));
  }
  const summary = s.messages.find((m) => m.type === 'Summary');
  assert.equal(summary.duration, +((first.length + second.length) / 16000).toFixed(3));
});

test('resumed audio with every recognizer busy: SERVICE_OVERLOADED and close 1013, only the recognized audio billed', async () => {
  const a = await createTestAccount(t.services);
  const auth = await t.services.authenticator.authenticate(a.apiKey);
  const s = native(a.apiKey);
  await s.opened;
  const timer = keepAlive([s]);
  const holders: SttStream[] = [];
  try {
    await sendAudio(s, first);
    await sleep(2500);
    holders.push(...(await takeAll()));
    await sendAudio(s, second);
    const closed = await s.closed;
    assert.equal(closed.code, 1013);
    const err = s.messages.find((m) => m.type === 'Error');
    assert.equal(err?.code, 'SERVICE_OVERLOADED');
  } finally {
    clearInterval(timer);
    for (const h of holders) await h.close();
    s.ws.terminate();
  }
  const summary = s.messages.find((m) => m.type === 'Summary');
  const billed = Math.ceil(first.length / 16000 - 1e-9);
  assert.equal(summary.billed_seconds, billed, JSON.stringify(summary));
  assert.equal(await t.services.billing.balance(auth), 100_000 - billed * 2);
});

test('a batch request waiting for a decoder gets 503 SERVICE_OVERLOADED with Retry-After after PARLA_STT_DECODER_WAIT_SECONDS, not a hang', async () => {
  const b = await createTestAccount(t.services);
  const holders: SttStream[] = [];
  try {
    holders.push(...(await takeAll()));
    const res = await transcribeBatch(b.apiKey);
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'SERVICE_OVERLOADED');
    assert.ok(Number(res.retryAfter) >= 1, `Retry-After: ${res.retryAfter}`);
    assert.ok(res.ms >= DECODER_WAIT_SECONDS * 1000 - 300 && res.ms < DECODER_WAIT_SECONDS * 1000 + 15_000, `answered after ${res.ms} ms`);
    // The same refusal in each dialect's shape, with Retry-After.
    const dg = await fetch(`http://127.0.0.1:${apiPort}/v1/listen?model=base`, {
      method: 'POST',
      headers: { authorization: `Token ${b.apiKey}`, 'content-type': 'audio/wav' },
      body: wavBytes,
      signal: AbortSignal.timeout(60_000),
    });
    assert.equal(dg.status, 503);
    assert.ok(Number(dg.headers.get('retry-after')) >= 1);
    const dgBody: any = await dg.json();
    assert.equal(typeof dgBody.err_code, 'string', JSON.stringify(dgBody));
    assert.equal(dgBody.parla_code, 'SERVICE_OVERLOADED');
    const { body, contentType } = await multipart(wavBytes, { model: 'gpt-4o-mini-transcribe' });
    const oa = await fetch(`http://127.0.0.1:${apiPort}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.apiKey}`, 'content-type': contentType },
      body,
      signal: AbortSignal.timeout(60_000),
    });
    assert.equal(oa.status, 503);
    assert.ok(Number(oa.headers.get('retry-after')) >= 1);
    const oaBody: any = await oa.json();
    assert.equal(typeof oaBody.error?.message, 'string', JSON.stringify(oaBody));
  } finally {
    for (const h of holders) await h.close();
  }
  assert.equal(
    await t.services.billing.balance(await t.services.authenticator.authenticate(b.apiKey)),
    100_000,
    'a refused request is not billed',
  );
  // With the decoders back, the same request is served.
  assert.equal((await transcribeBatch(b.apiKey)).status, 200);
});
