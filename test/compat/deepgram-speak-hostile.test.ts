// Hostile input on Deepgram's speak API: malformed and wrong-typed REST bodies and queries (a 4xx
// in Deepgram's error shape, nothing billed), and on the socket garbage JSON, unknown types,
// binary frames, over-long and oversized Speak messages and floods of Flush: each gets a Warning
// (or, for a frame over the size limit, a close), the session keeps answering, nothing crashes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { SPEAK_SOCKET_LIMITS } from '../../src/compat/deepgram/speak-session.js';

let t: TestApp;
let key: string;
let accountId: string;
let port: number;

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  await t.services.registry.whenReady();
});
after(() => t.close());

function expectDeepgramError(res: { statusCode: number; headers: Record<string, unknown>; body: string }, what: string) {
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  const body = JSON.parse(res.body);
  assert.equal(typeof body.err_code, 'string', what);
  assert.equal(typeof body.err_msg, 'string', what);
  assert.match(body.request_id, /^req_/, what);
  assert.equal(res.headers['dg-request-id'], body.request_id, what);
}

test('REST: wrong bodies and queries are 4xx in Deepgram shape, nothing billed', async () => {
  const before = await t.services.store.getBalance(accountId, 'live');
  const headers = { authorization: `Token ${key}`, 'content-type': 'application/json' };
  const bodies = [
    '{',
    '[]',
    'null',
    '"text"',
    '{"text": 5}',
    '{"text": ["a"]}',
    '{"text": {}}',
    '{"text": ""}',
    '{"text": "   "}',
    '{"text": null}',
    '{}',
    JSON.stringify({ text: 'x'.repeat(2001) }),
    JSON.stringify({ text: '😀'.repeat(2001) }),
    '{"a":'.repeat(5000),
  ];
  for (const payload of bodies)
    expectDeepgramError(await t.app.inject({ method: 'POST', url: '/v1/speak', headers, payload }), payload.slice(0, 40));
  const queries = [
    'encoding=wav',
    'encoding=',
    'encoding=LINEAR16',
    'encoding=mp3&container=wav',
    'encoding=flac&container=ogg',
    'encoding=linear16&container=ogg',
    'sample_rate=abc',
    'encoding=linear16&sample_rate=-1',
    'encoding=linear16&sample_rate=1e9',
    'encoding=linear16&sample_rate=44100.0',
    'encoding=mp3&bit_rate=1',
    'encoding=linear16&bit_rate=48000',
    'speed=fast',
    'speed=9',
    'model=',
    'model=aura-',
    'model=aura-2--en',
    'model=aura-2-thalia-de',
    `model=${'a'.repeat(10_000)}`,
    'model=aura-max:',
    'model=%00',
    'encoding=opus&container=none',
    'encoding=opus&container=wav',
    'encoding=opus&sample_rate=24000',
    'encoding=opus&bit_rate=3999',
    'encoding=opus&bit_rate=300000',
    'encoding=opus&bit_rate=12k',
    'encoding=aac&container=ogg',
    'encoding=aac&sample_rate=48000',
    'encoding=aac&bit_rate=192000',
    'encoding=aac&bit_rate=-48000',
    'encoding=OPUS',
    'callback=http://127.0.0.1:1/hook',
    'callback=',
  ];
  for (const q of queries)
    expectDeepgramError(await t.app.inject({ method: 'POST', url: `/v1/speak?${q}`, headers, payload: { text: 'Hi.' } }), q);
  expectDeepgramError(
    await t.app.inject({ method: 'POST', url: '/v1/speak', headers: { ...headers, 'content-type': 'text/plain' }, payload: 'Hi.' }),
    'text/plain',
  );
  assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
});

interface Conn {
  ws: WebSocket;
  json: Array<Record<string, any>>;
  audio: number;
  closed: Promise<number>;
  waitFor(pred: (m: Record<string, any>) => boolean, ms?: number): Promise<Record<string, any>>;
}

async function connect(): Promise<Conn> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/speak?model=aura-2-thalia-en&encoding=linear16&sample_rate=8000`, {
    headers: { authorization: `Token ${key}` },
  });
  const c: Conn = {
    ws,
    json: [],
    audio: 0,
    closed: new Promise((resolve) => ws.on('close', (code) => resolve(code))),
    waitFor: null as never,
  };
  ws.on('message', (d, isBinary) => {
    if (isBinary) c.audio += (d as Buffer).length;
    else c.json.push(JSON.parse(d.toString()));
  });
  ws.on('error', () => undefined);
  c.waitFor = async (pred, ms = 20_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = c.json.find(pred);
      if (m) return m;
      if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(c.json).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  await c.waitFor((m) => m.type === 'Metadata');
  return c;
}

/** The session still speaks: Speak + Flush gives audio and Flushed. */
async function stillSpeaks(c: Conn): Promise<void> {
  const flushed = c.json.filter((m) => m.type === 'Flushed').length;
  const audio = c.audio;
  c.ws.send(JSON.stringify({ type: 'Speak', text: 'Still fine.' }));
  c.ws.send(JSON.stringify({ type: 'Flush' }));
  await c.waitFor(() => c.json.filter((m) => m.type === 'Flushed').length > flushed);
  assert.ok(c.audio > audio);
}

test('socket: garbage JSON, wrong shapes, unknown types and binary frames get Warnings; the session goes on', async () => {
  const c = await connect();
  const hostile: Array<string | Buffer> = [
    '{',
    'null',
    '[]',
    '"Speak"',
    '42',
    '{"type": 5}',
    '{"type": "speak", "text": "x"}',
    '{"type": "Speak"}',
    '{"type": "Speak", "text": 5}',
    '{"type": "Speak", "text": null}',
    '{"type": "KeepAlive"}',
    '{"type": "__proto__"}',
    '{"__proto__": {"type": "Flush"}}',
    '\u0000',
    Buffer.from([0, 1, 2, 3]),
    Buffer.alloc(10_000),
  ];
  for (const m of hostile) c.ws.send(m, { binary: Buffer.isBuffer(m) });
  await c.waitFor(() => c.json.filter((m) => m.type === 'Warning').length >= hostile.length);
  for (const w of c.json.filter((m) => m.type === 'Warning')) {
    assert.equal(typeof w.description, 'string');
    assert.equal(typeof w.code, 'string');
  }
  // None of them was taken for a Flush.
  assert.equal(c.json.filter((m) => m.type === 'Flushed').length, 0);
  await stillSpeaks(c);
  c.ws.close();
});

test('socket: a Speak over 2,000 characters is dropped with a Warning; text waiting to be spoken is capped', async () => {
  const c = await connect();
  c.ws.send(JSON.stringify({ type: 'Speak', text: 'word '.repeat(401) }));
  const w = await c.waitFor((m) => m.type === 'Warning');
  assert.equal(w.code, 'TEXT_LIMIT_EXCEEDED');
  // Fill the buffer without a sentence end (nothing is spoken before a Flush), then one more.
  const chunk = 'a'.repeat(2000);
  for (let i = 0; i < SPEAK_SOCKET_LIMITS.maxBufferedChars / 2000; i++) c.ws.send(JSON.stringify({ type: 'Speak', text: chunk }));
  c.ws.send(JSON.stringify({ type: 'Speak', text: chunk }));
  await c.waitFor((m) => m.type === 'Warning' && m.code === 'BUFFER_FULL');
  c.ws.send(JSON.stringify({ type: 'Clear' }));
  await c.waitFor((m) => m.type === 'Cleared');
  await stillSpeaks(c);
  c.ws.close();
});

test('socket: a frame over the size limit closes with 1009, and the server keeps serving', async () => {
  const c = await connect();
  c.ws.send(JSON.stringify({ type: 'Speak', text: 'x'.repeat(SPEAK_SOCKET_LIMITS.maxMessageBytes) }));
  assert.equal(await c.closed, 1009);
  const d = await connect();
  await stillSpeaks(d);
  d.ws.close();
});

test("socket: a flood of Flush gets Deepgram's 20 per minute, then Warnings; nothing hangs", async () => {
  const c = await connect();
  for (let i = 0; i < 30; i++) c.ws.send(JSON.stringify({ type: 'Flush' }));
  await c.waitFor(
    () =>
      c.json.filter((m) => m.type === 'Flushed').length === SPEAK_SOCKET_LIMITS.flushesPerWindow &&
      c.json.filter((m) => m.type === 'Warning').length === 10,
  );
  const ids = c.json.filter((m) => m.type === 'Flushed').map((m) => m.sequence_id);
  assert.deepEqual(
    ids,
    Array.from({ length: 20 }, (_, i) => i),
  );
  assert.ok(c.json.filter((m) => m.type === 'Warning').every((m) => m.code === 'FLUSH_LIMIT_EXCEEDED'));
  // Clear still works and the socket closes cleanly on Close.
  c.ws.send(JSON.stringify({ type: 'Clear' }));
  await c.waitFor((m) => m.type === 'Cleared');
  c.ws.send(JSON.stringify({ type: 'Close' }));
  assert.equal(await c.closed, 1000);
});

test('socket: a client that does not read gets no unbounded buffering, and its going away ends the session', async () => {
  const c = await connect();
  // Stop reading: the server must stop at its socket buffer, not synthesize everything into memory.
  (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  const text = Array.from({ length: 15 }, (_, i) => `Sentence ${i + 1} is long enough to make about two seconds of audio here.`).join(' ');
  c.ws.send(JSON.stringify({ type: 'Speak', text }));
  c.ws.send(JSON.stringify({ type: 'Flush' }));
  await new Promise((r) => setTimeout(r, 3000));
  c.ws.terminate();
  // The server is fine afterwards.
  const d = await connect();
  await stillSpeaks(d);
  d.ws.close();
});
