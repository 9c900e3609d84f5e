// The real-time WebSocket over TLS with a real client: refusals at the upgrade, interim and final
// results on the stream's timeline, control messages, idle timeout, slots and billing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { RealtimeServer } from '../../src/realtime/server.js';
import { flite, soxConcat, wordErrorRate } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { resampleInt16 } from '../../src/audio/resample.js';

let t: TestApp;
let rt: RealtimeServer;
let port: number;
let key: string;
let accountId: string;
let speech: Int16Array;

before(async () => {
  t = await createTestApp();
  // The test services keep one recognizer per profile, so a second stream on it waits for the first.
  rt = new RealtimeServer(t.services, { idleTimeoutMs: 1500, recognizerWaitMs: 1000 });
  port = await rt.listen(0, '127.0.0.1');
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 100_000 }));
  const wav = decodeWav(
    readFileSync(soxConcat([flite('Good morning, the meeting starts at nine.'), flite('Please bring the quarterly report.')], 1.0)),
  );
  speech = float32ToInt16(wav.channels[0]!);
  await t.services.registry.whenReady();
});
after(async () => {
  await rt.close();
  await t.close();
});

interface Client {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
  waitFor(pred: (m: any) => boolean, ms?: number): Promise<any>;
}

function connect(
  query: Record<string, string>,
  apiKey: string | null = key,
): Promise<Client | { status: number; body: any; headers: Record<string, unknown> }> {
  const q = new URLSearchParams({ ...(apiKey === null ? {} : { api_key: apiKey }), ...query });
  const ws = new WebSocket(`wss://127.0.0.1:${port}/api/v1/stt/realtime/stream?${q}`, { ca: rt.cert });
  const messages: any[] = [];
  const listeners = new Set<() => void>();
  ws.on('message', (d, bin) => {
    if (!bin) messages.push(JSON.parse(d.toString()));
    for (const l of listeners) l();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const waitFor = (pred: (m: any) => boolean, ms = 15000) =>
    new Promise<any>((resolve, reject) => {
      const check = () => {
        const m = messages.find(pred);
        if (m) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve(m);
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out; got ${JSON.stringify(messages.map((x) => x.type))}`));
      }, ms);
      listeners.add(check);
      check();
    });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages, closed, waitFor }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body), headers: res.headers }));
    });
    ws.once('error', (e) => {
      if (!(e as Error).message.includes('Unexpected server response')) reject(e);
    });
  });
}

async function open(query: Record<string, string> = {}, apiKey = key): Promise<Client> {
  const c = await connect(query, apiKey);
  assert.ok('ws' in c, `refused: ${JSON.stringify(c)}`);
  return c as Client;
}

async function sendPaced(c: Client, pcm: Int16Array, rate = 16000, realTime = true) {
  const chunk = rate / 10;
  const started = Date.now();
  for (let i = 0, n = 0; i < pcm.length; i += chunk, n++) {
    const part = pcm.subarray(i, i + chunk);
    c.ws.send(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
    if (realTime) {
      const wait = started + (n + 1) * 100 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }
}

describe('refusals before the upgrade', () => {
  test('each refusal is an HTTP error with the interface body', async () => {
    const expect = async (query: Record<string, string>, apiKey: string | null, status: number, code: string) => {
      const r = await connect(query, apiKey);
      assert.ok(!('ws' in r), `${code}: the upgrade was accepted`);
      const res = r as { status: number; body: any; headers: Record<string, unknown> };
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.error.code, code);
      assert.equal(res.body.success, false);
      assert.equal(res.headers['x-request-id'], res.body.request_id);
      return res;
    };
    await expect({}, null, 401, 'AUTH_MISSING_API_KEY');
    await expect({}, 'svc_live_nope', 401, 'AUTH_INVALID_API_KEY');
    await expect({ sample_rate: '4000' }, key, 400, 'INVALID_SAMPLE_RATE');
    await expect({ model: 'whisper' }, key, 400, 'INVALID_MODEL');
    await expect({ encoding: 'mulaw' }, key, 400, 'INVALID_FORMAT');
    await expect({ language: 'fr' }, key, 400, 'LANGUAGE_NOT_SUPPORTED');
    const broke = await createTestAccount(t.services, { credits: 0 });
    await expect({}, broke.apiKey, 402, 'INSUFFICIENT_CREDITS');
    const off = await createTestAccount(t.services);
    await t.services.store.setFeature(off.accountId, 'stt_realtime', false);
    t.services.authenticator.invalidate();
    await expect({}, off.apiKey, 403, 'FEATURE_DISABLED');
    const free = await createTestAccount(t.services, { plan: 'free' });
    const first = await open({}, free.apiKey);
    assert.equal(await t.services.limiter.slotsInUse(free.accountId), 1, 'an open stream holds a slot');
    const res = await expect({}, free.apiKey, 429, 'CONCURRENT_LIMIT');
    assert.ok(Number(res.headers['retry-after']) >= 1);
    // The open stream has sent no audio, so it holds no recognizer (decision #59): the node's only
    // one is free for other work, and another upgrade gets in.
    const engine = t.services.registry.sttBinding('cipher-fast')!.engine;
    const held = await Promise.race([
      engine.openStream({ language: 'en', profile: 'fast', keywords: [] }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the silent stream holds the recognizer')), 500)),
    ]);
    await held.close();
    const second = await open({}, key);
    second.ws.send(JSON.stringify({ type: 'CloseStream' }));
    await second.closed;
    first.ws.send(JSON.stringify({ type: 'CloseStream' }));
    await first.closed;
    for (let i = 0; i < 50 && (await t.services.limiter.slotsInUse(free.accountId)) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await t.services.limiter.slotsInUse(free.accountId), 0, 'the slot is freed at close');
  });
});

describe('streaming', () => {
  test('real-time pace: metadata, speech started, interim then final results on the stream timeline, summary, one debit', async () => {
    const c = await open({ interim_results: 'true', endpointing: '400' });
    // Audio from the first moment, without waiting for Metadata (clients do that).
    await sendPaced(c, speech);
    const meta = await c.waitFor((m) => m.type === 'Metadata');
    assert.match(meta.request_id, /^req_/);
    assert.equal(meta.model, 'cipher-fast');
    assert.equal(meta.engine, 'pocketsphinx', 'Metadata names the engine serving the stream');
    assert.equal(meta.sample_rate, 16000);
    // A second of silence after the speech: endpointing ends the last utterance.
    await sendPaced(c, new Int16Array(16000));
    await c.waitFor((m) => m.type === 'Results' && m.is_final && m.channel.alternatives[0].transcript.toLowerCase().includes('report'));
    c.ws.send(JSON.stringify({ type: 'CloseStream' }));
    const summary = await c.waitFor((m) => m.type === 'Summary');
    const { code } = await c.closed;
    assert.equal(code, 1000);

    const types = c.messages.map((m) => m.type);
    assert.equal(types[0], 'Metadata');
    assert.ok(types.includes('SpeechStarted'));
    const results = c.messages.filter((m) => m.type === 'Results');
    const firstInterim = results.findIndex((m) => !m.is_final);
    const firstFinal = results.findIndex((m) => m.is_final);
    assert.ok(firstInterim >= 0 && firstInterim < firstFinal, 'interim results come before the final one');
    const finals = results.filter((m) => m.is_final && m.channel.alternatives[0].transcript);
    assert.ok(finals.length >= 2, 'one final result per utterance');
    assert.ok(finals.some((m) => m.speech_final));
    const words = finals.flatMap((m) => m.channel.alternatives[0].words);
    for (let i = 1; i < words.length; i++) assert.ok(words[i].start >= words[i - 1].start);
    assert.ok(words[words.length - 1].end <= speech.length / 16000 + 0.05);
    assert.ok(finals[1].start > finals[0].start + 1.5, 'the second utterance is later on the stream timeline');

    const live = finals.map((m) => m.channel.alternatives[0].transcript).join(' ');
    const batch = await t.services.registry.sttBinding('cipher-fast')!.engine.recognize(speech, { language: 'en', profile: 'fast' });
    const batchText = batch.utterances.flatMap((u) => u.words.map((w) => w.word)).join(' ');
    assert.ok(wordErrorRate(batchText, live) <= 0.2, `live "${live}" vs batch "${batchText}"`);

    const seconds = speech.length / 16000 + 1;
    assert.ok(Math.abs(summary.duration - seconds) < 0.01);
    assert.equal(summary.credits_used, 2 * Math.ceil(seconds));
    const rows = (await t.services.store.listUsage(accountId, 'live', 10)).filter((r) => r.requestId === meta.request_id);
    assert.equal(rows.length, 1, 'debited exactly once');
    assert.equal(rows[0]!.credits, summary.credits_used);
    assert.equal(rows[0]!.kind, 'stt_realtime');
  });

  test('a burst at 48 kHz: resampled, finals arrive; Finalize flushes; malformed messages get an Error and the stream goes on', async () => {
    const c = await open({ sample_rate: '48000', interim_results: 'false' });
    await c.waitFor((m) => m.type === 'Metadata');
    c.ws.send('{not json');
    await c.waitFor((m) => m.type === 'Error' && m.code === 'INVALID_REQUEST');
    c.ws.send(JSON.stringify({ type: 'Dance' }));
    await c.waitFor((m) => m.type === 'Error' && /Dance/.test(m.message));
    await sendPaced(c, resampleInt16(speech, 16000, 48000), 48000, false);
    c.ws.send(JSON.stringify({ type: 'Finalize' }));
    const fin = await c.waitFor((m) => m.type === 'Results' && m.is_final && m.from_finalize);
    assert.equal(fin.speech_final, false);
    assert.ok(!c.messages.some((m) => m.type === 'Results' && !m.is_final), 'no interim results when interim_results=false');
    const all = c.messages
      .filter((m) => m.type === 'Results' && m.is_final)
      .map((m) => m.channel.alternatives[0].transcript)
      .join(' ');
    assert.match(all.toLowerCase(), /report/);
    c.ws.send(JSON.stringify({ type: 'CloseStream' }));
    assert.equal((await c.closed).code, 1000);
  });

  test('KeepAlive holds an idle stream open; silence without it closes with 4008', async () => {
    const c = await open();
    await c.waitFor((m) => m.type === 'Metadata');
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 800));
      c.ws.send(JSON.stringify({ type: 'KeepAlive' }));
    }
    assert.equal(c.ws.readyState, WebSocket.OPEN);
    const { code } = await c.closed;
    assert.equal(code, 4008);
    const summary = c.messages.find((m) => m.type === 'Summary');
    assert.equal(summary.credits_used, 0, 'no audio, nothing billed');
  });

  test('a client that vanishes frees its slot and is billed for what it sent', async () => {
    const acct = await createTestAccount(t.services, { plan: 'basic', credits: 10_000 });
    const c = await open({}, acct.apiKey);
    await c.waitFor((m) => m.type === 'Metadata');
    await sendPaced(c, speech.subarray(0, 16000 * 2), 16000, false);
    await new Promise((r) => setTimeout(r, 300));
    c.ws.terminate();
    let rows: Awaited<ReturnType<typeof t.services.store.listUsage>> = [];
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await t.services.store.listUsage(acct.accountId, 'live', 5);
    }
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.credits, 2 * 2);
    assert.equal(await t.services.limiter.slotsInUse(acct.accountId), 0);
    assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 10_000 - 4);
  });
});

describe('limits and shutdown', () => {
  test('credits running out mid-stream: INSUFFICIENT_CREDITS, what was paid for is recognized and billed, close 4002', async () => {
    // 7 credits at 2 per second: a 3 s first hold, and not enough for a fourth second.
    const poor = await createTestAccount(t.services, { credits: 7 });
    const c = await open({ interim_results: 'false' }, poor.apiKey);
    const meta = await c.waitFor((m) => m.type === 'Metadata');
    await sendPaced(c, speech, 16000, false);
    const err = await c.waitFor((m) => m.type === 'Error');
    assert.equal(err.code, 'INSUFFICIENT_CREDITS');
    const { code } = await c.closed;
    assert.equal(code, 4002);
    const summary = c.messages.find((m) => m.type === 'Summary');
    assert.equal(summary.billed_seconds, 3);
    assert.equal(summary.credits_used, 6);
    const said = c.messages
      .filter((m) => m.type === 'Results' && m.is_final)
      .map((m) => m.channel.alternatives[0].transcript)
      .join(' ');
    assert.match(said.toLowerCase(), /morning/, 'the paid-for first seconds are recognized');
    const rows = (await t.services.store.listUsage(poor.accountId, 'live', 10)).filter((r) => r.requestId === meta.request_id);
    assert.equal(rows.length, 1, 'debited exactly once');
    assert.equal(rows[0]!.credits, 6);
    assert.equal(await t.services.store.getBalance(poor.accountId, 'live'), 1);
  });

  test('an account with credits for less than the first minute may still stream them', async () => {
    const small = await createTestAccount(t.services, { credits: 30 });
    const c = await open({}, small.apiKey);
    await c.waitFor((m) => m.type === 'Metadata');
    c.ws.send(JSON.stringify({ type: 'CloseStream' }));
    assert.equal((await c.closed).code, 1000);
    assert.equal(await t.services.store.getBalance(small.accountId, 'live'), 30, 'no audio, nothing billed, hold returned');
  });

  test('the maximum session length closes with 4009 after the summary; shutdown gives each stream its final result and summary (1001)', async () => {
    const rt2 = new RealtimeServer(t.services, { maxSessionSeconds: 2 });
    const port2 = await rt2.listen(0, '127.0.0.1');
    const q = `api_key=${key}&interim_results=false`;
    const connect2 = async () => {
      const ws = new WebSocket(`wss://127.0.0.1:${port2}/api/v1/stt/realtime/stream?${q}`, { ca: rt2.cert });
      const messages: any[] = [];
      ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
      const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
      await new Promise((r, j) => {
        ws.once('open', r);
        ws.once('error', j);
      });
      return { ws, messages, closed };
    };
    const short = await connect2();
    const started = Date.now();
    assert.equal((await short.closed).code, 4009);
    assert.ok(Date.now() - started < 4000);
    assert.equal(short.messages.at(-1).type, 'Summary');

    const live = await connect2();
    live.ws.send(Buffer.from(speech.buffer, speech.byteOffset, 16000 * 2 * 3));
    await new Promise((r) => setTimeout(r, 300));
    await rt2.close();
    assert.equal((await live.closed).code, 1001);
    const types = live.messages.map((m) => m.type);
    assert.equal(types.at(-1), 'Summary');
    const final = live.messages
      .filter((m) => m.type === 'Results' && m.is_final)
      .map((m) => m.channel.alternatives[0].transcript)
      .join(' ');
    assert.match(final.toLowerCase(), /morning/, 'the audio sent before shutdown is recognized and delivered');
    assert.equal(live.messages.at(-1).duration, 3);
  });
});

test("GET /stt/realtime/info describes the stream and the caller's limits", async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/stt/realtime/info', headers: { 'x-api-key': key } });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.match(body.url, /^wss:\/\/.+\/api\/v1\/stt\/realtime\/stream$/);
  assert.ok(body.models.some((m: any) => m.id === 'lucid-mono' && m.credits_per_second === 3 && m.languages.includes('en')));
  assert.deepEqual(body.encodings, ['linear16', 'opus']);
  assert.equal(body.limits.concurrent_streams, 10);
  assert.equal(typeof body.limits.credits_remaining, 'number');
  assert.equal(body.limits.max_session_seconds, 3600);
});
