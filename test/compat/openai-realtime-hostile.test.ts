// Hostile input on OpenAI's Realtime transcription socket (WS /v1/realtime) and the token routes:
// hostile handshakes are refused with OpenAI's error body before anything is admitted (expired,
// altered and revoked-key tokens among them); inside a session, garbage events, bad base64, huge
// appends, commits of nothing, events out of order and refused updates get `error` events in
// OpenAI's shape and the session goes on (still transcribing afterwards); an event over the frame
// limit closes with 1009; every slot comes back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { flite } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

let t: TestApp;
let port: number;
let rich: string;
let richAccount: string;
let broke: string;
let speech24k: Buffer;

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  ({ apiKey: rich, accountId: richAccount } = await createTestAccount(t.services, { credits: 1_000_000 }));
  ({ apiKey: broke } = await createTestAccount(t.services, { credits: 0 }));
  // 16 kHz speech repeated to 24 kHz by 3:2 sample picking is not needed: send it as audio/pcm's 24 kHz
  // after a plain linear upsampling, good enough for the recognizer to find words.
  const pcm16 = float32ToInt16(decodeWav(readFileSync(flite('Please bring the quarterly report.'))).channels[0]!);
  const out = new Int16Array(Math.floor((pcm16.length * 3) / 2));
  for (let i = 0; i < out.length; i++) {
    const x = (i * 2) / 3;
    const a = pcm16[Math.floor(x)] ?? 0;
    const b = pcm16[Math.min(pcm16.length - 1, Math.floor(x) + 1)] ?? a;
    out[i] = Math.round(a + (b - a) * (x - Math.floor(x)));
  }
  speech24k = Buffer.concat([Buffer.from(out.buffer), Buffer.alloc(24000)]);
  await t.services.registry.whenReady();
});
after(() => t.close());

const WS_HEADERS: Array<[string, string]> = [
  ['Upgrade', 'websocket'],
  ['Connection', 'Upgrade'],
  ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
  ['Sec-WebSocket-Version', '13'],
];
const bearer = (key: string): Array<[string, string]> => [...WS_HEADERS, ['Authorization', `Bearer ${key}`]];

/** A handshake written by hand; the status and body of the answer (or 0 on none within 10 s). */
function rawUpgrade(path: string, headers: Array<[string, string]>, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...headers.map(([k, v]) => `${k}: ${v}`)].join('\r\n') + '\r\n\r\n',
      );
    });
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on('data', (d) => {
      chunks.push(d);
      const text = Buffer.concat(chunks).toString();
      if (text.startsWith('HTTP/1.1 101')) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString();
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

function openAiBody(body: string): { message: string; type: string; param: unknown; code: string } {
  const parsed = JSON.parse(body) as { error: { message: string; type: string; param: unknown; code: string } };
  assert.deepEqual(Object.keys(parsed), ['error']);
  assert.equal(typeof parsed.error.message, 'string');
  assert.equal(typeof parsed.error.type, 'string');
  return parsed.error;
}

describe("hostile handshakes are refused in OpenAI's error body", () => {
  const tokens = () => t.services.authenticator.tokens;
  const cases: Array<[string, () => string, () => Array<[string, string]>, number, string?]> = [
    ['no key', () => '/v1/realtime?model=gpt-realtime', () => WS_HEADERS, 401],
    ['unknown key', () => '/v1/realtime?model=gpt-realtime', () => bearer('svc_live_' + '0'.repeat(40)), 401],
    ['key of 8 KB', () => '/v1/realtime', () => bearer('k'.repeat(8000)), 401],
    ['Authorization: Basic', () => '/v1/realtime', () => [...WS_HEADERS, ['Authorization', `Basic ${rich}`]], 401],
    [
      'empty key subprotocol',
      () => '/v1/realtime',
      () => [...WS_HEADERS, ['Sec-WebSocket-Protocol', 'realtime, openai-insecure-api-key.']],
      401,
    ],
    ['expired token', () => '/v1/realtime', () => bearer(tokens().issue('key_x', 60, Date.now() - 120_000).token), 401],
    [
      'token of another deployment',
      () => '/v1/realtime',
      () => bearer('ek_' + Buffer.from('{"k":"x","e":9999999999,"n":"a"}').toString('base64url') + '.' + 'A'.repeat(43)),
      401,
    ],
    ['token of 5,000 characters', () => '/v1/realtime', () => bearer('ek_' + 'A'.repeat(5000)), 401],
    ['0-credit account', () => '/v1/realtime?intent=transcription', () => bearer(broke), 402],
    ['intent=conversation', () => '/v1/realtime?intent=conversation', () => bearer(rich), 400],
    ['unknown model', () => '/v1/realtime?model=nope', () => bearer(rich), 400],
    ['model of 5,000 characters', () => `/v1/realtime?model=${'m'.repeat(5000)}`, () => bearer(rich), 400],
    [
      'WebSocket version 7',
      () => '/v1/realtime',
      () => [...WS_HEADERS.slice(0, 3), ['Sec-WebSocket-Version', '7'], ['Authorization', `Bearer ${rich}`]],
      400,
    ],
    ['POST instead of GET', () => '/v1/realtime', () => bearer(rich), 400, 'POST'],
  ];
  for (const [name, path, headers, status, method] of cases) {
    test(name, async () => {
      const res = await rawUpgrade(path(), headers(), method);
      assert.equal(res.status, status, res.body);
      openAiBody(res.body);
    });
  }

  test("a revoked key's token is refused at the next handshake", async () => {
    const { apiKey, keyId } = await createTestAccount(t.services, { credits: 1000 });
    const made = await t.app.inject({ method: 'POST', url: '/api/v1/auth/tokens', headers: { 'x-api-key': apiKey } });
    assert.equal(made.statusCode, 200, made.body);
    const token = made.json().token as string;
    const first = await rawUpgrade('/v1/realtime', bearer(token));
    assert.equal(first.status, 101, first.body);
    await sleep(100);
    await t.services.store.setKeyState(keyId, 'revoked');
    t.services.authenticator.invalidate();
    const res = await rawUpgrade('/v1/realtime', bearer(token));
    assert.equal(res.status, 401);
    assert.equal(openAiBody(res.body).code, 'auth_revoked_api_key');
  });
});

describe('token routes refuse hostile bodies in their dialect', () => {
  const cases: Array<[string, string, () => Record<string, string>, string, number]> = [
    [
      'client_secrets: seconds 5',
      '/v1/realtime/client_secrets',
      () => ({ authorization: `Bearer ${rich}` }),
      '{"expires_after":{"seconds":5}}',
      400,
    ],
    [
      'client_secrets: seconds "60"',
      '/v1/realtime/client_secrets',
      () => ({ authorization: `Bearer ${rich}` }),
      '{"expires_after":{"seconds":"60"}}',
      400,
    ],
    [
      'client_secrets: anchor now',
      '/v1/realtime/client_secrets',
      () => ({ authorization: `Bearer ${rich}` }),
      '{"expires_after":{"anchor":"now"}}',
      400,
    ],
    [
      'client_secrets: session semantic_vad eagerness eager',
      '/v1/realtime/client_secrets',
      () => ({ authorization: `Bearer ${rich}` }),
      '{"session":{"type":"transcription","audio":{"input":{"turn_detection":{"type":"semantic_vad","eagerness":"eager"}}}}}',
      400,
    ],
    [
      'client_secrets: session turn_detection type vad',
      '/v1/realtime/client_secrets',
      () => ({ authorization: `Bearer ${rich}` }),
      '{"session":{"type":"transcription","audio":{"input":{"turn_detection":{"type":"vad"}}}}}',
      400,
    ],
    [
      'client_secrets: session model nope',
      '/v1/realtime/client_secrets',
      () => ({ authorization: `Bearer ${rich}` }),
      '{"session":{"type":"transcription","audio":{"input":{"transcription":{"model":"nope"}}}}}',
      400,
    ],
    ['client_secrets: not JSON', '/v1/realtime/client_secrets', () => ({ authorization: `Bearer ${rich}` }), '{', 400],
    ['client_secrets: no key', '/v1/realtime/client_secrets', () => ({}), '{}', 401],
    ['grant: ttl 1e9', '/v1/auth/grant', () => ({ authorization: `Token ${rich}` }), '{"ttl_seconds":1000000000}', 400],
    ['grant: ttl -5', '/v1/auth/grant', () => ({ authorization: `Token ${rich}` }), '{"ttl_seconds":-5}', 400],
    ['native: ttl 0', '/api/v1/auth/tokens', () => ({ 'x-api-key': rich }), '{"ttl_seconds":0}', 400],
    // Unknown fields are dropped, as on every native route (the app's validator removes them).
    ['native: unknown field', '/api/v1/auth/tokens', () => ({ 'x-api-key': rich }), '{"scope":"all"}', 200],
    ['native: ttl "60"', '/api/v1/auth/tokens', () => ({ 'x-api-key': rich }), '{"ttl_seconds":"60"}', 400],
    ['native: body an array', '/api/v1/auth/tokens', () => ({ 'x-api-key': rich }), '[60]', 400],
    ['native: a token as the key', '/api/v1/auth/tokens', () => ({ 'x-api-key': 'ek_AAAAAAAAAAAA.' + 'A'.repeat(43) }), '{}', 401],
  ];
  for (const [name, url, headers, payload, status] of cases) {
    test(name, async () => {
      const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers() }, payload });
      assert.equal(res.statusCode, status, res.body);
      if (url.startsWith('/v1/realtime')) openAiBody(res.body);
      if (url === '/v1/auth/grant') assert.equal(typeof res.json().err_code, 'string');
    });
  }
});

interface Session {
  ws: WebSocket;
  events: any[];
  closed: Promise<number>;
  /** The first event matching `pred` that arrives after this call (or already did, when `fromStart`). */
  waitFor(pred: (e: any) => boolean, ms?: number, fromStart?: boolean): Promise<any>;
}

async function open(): Promise<Session> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?intent=transcription`, {
    headers: { authorization: `Bearer ${rich}` },
    maxPayload: 1 << 24,
  });
  const events: any[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (d) => {
    events.push(JSON.parse(d.toString()));
    for (const w of waiters) w();
  });
  ws.on('error', () => undefined);
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  const waitFor = (pred: (e: any) => boolean, ms = 20_000, fromStart = false) =>
    new Promise<any>((resolve, reject) => {
      let seen = fromStart ? 0 : events.length;
      const check = () => {
        for (; seen < events.length; seen++) {
          if (pred(events[seen])) {
            waiters.delete(check);
            clearTimeout(timer);
            return resolve(events[seen]);
          }
        }
      };
      const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(events.map((e) => e.type))}`)), ms);
      waiters.add(check);
      check();
    });
  await waitFor((e) => e.type === 'session.created', 20_000, true);
  return { ws, events, closed, waitFor };
}

describe('hostile events inside a session get OpenAI error events, and the session goes on', () => {
  test('garbage, bad base64, out-of-order events, refused updates, commits of nothing; then it still transcribes', async () => {
    const s = await open();
    const hostile: Array<[string, string | Buffer, string]> = [
      ['not JSON', '{"type":', 'invalid_json'],
      ['a JSON array', '[1,2]', 'invalid_json'],
      ['JSON null', 'null', 'invalid_json'],
      ['nested 100,000 deep', '['.repeat(100_000) + ']'.repeat(100_000), 'invalid_json'],
      ['unknown type', '{"type":"input_audio_buffer.explode"}', 'invalid_event'],
      ['type is a number', '{"type":42}', 'invalid_event'],
      ['type of 10,000 characters', JSON.stringify({ type: 'x'.repeat(10_000) }), 'invalid_event'],
      ['response.create', '{"type":"response.create"}', 'invalid_request_error'],
      ['a binary frame', Buffer.from([1, 2, 3, 4]), 'invalid_request_error'],
      ['commit of nothing', '{"type":"input_audio_buffer.commit"}', 'input_audio_buffer_commit_empty'],
      ['append: audio a number', '{"type":"input_audio_buffer.append","audio":12}', 'invalid_value'],
      ['append: audio missing', '{"type":"input_audio_buffer.append"}', 'invalid_value'],
      ['append: not base64', '{"type":"input_audio_buffer.append","audio":"!!!!"}', 'invalid_value'],
      ['append: base64 of a bad length', '{"type":"input_audio_buffer.append","audio":"QUJD="}', 'invalid_value'],
      ['append: base64 with a newline', '{"type":"input_audio_buffer.append","audio":"QUJD\\nREVG"}', 'invalid_value'],
      ['update: session a string', '{"type":"session.update","session":"x"}', 'invalid_value'],
      ['update: speech-to-speech session', '{"type":"session.update","session":{"type":"realtime"}}', 'invalid_value'],
      ['update: audio/opus', '{"type":"session.update","session":{"audio":{"input":{"format":{"type":"audio/opus"}}}}}', 'invalid_value'],
      [
        'update: pcm at 16 kHz',
        '{"type":"session.update","session":{"audio":{"input":{"format":{"type":"audio/pcm","rate":16000}}}}}',
        'invalid_value',
      ],
      [
        'update: semantic_vad eagerness 3',
        '{"type":"session.update","session":{"audio":{"input":{"turn_detection":{"type":"semantic_vad","eagerness":3}}}}}',
        'invalid_value',
      ],
      [
        'update: semantic_vad eagerness of 5,000 characters',
        JSON.stringify({
          type: 'session.update',
          session: { audio: { input: { turn_detection: { type: 'semantic_vad', eagerness: 'h'.repeat(5000) } } } },
        }),
        'invalid_value',
      ],
      [
        'update: threshold 5',
        '{"type":"session.update","session":{"audio":{"input":{"turn_detection":{"type":"server_vad","threshold":5}}}}}',
        'invalid_value',
      ],
      [
        'update: silence -1',
        '{"type":"session.update","session":{"audio":{"input":{"turn_detection":{"type":"server_vad","silence_duration_ms":-1}}}}}',
        'invalid_value',
      ],
      [
        'update: unknown model',
        '{"type":"session.update","session":{"audio":{"input":{"transcription":{"model":"nope"}}}}}',
        'invalid_value',
      ],
      [
        'update: prompt of 5,000 characters',
        JSON.stringify({ type: 'session.update', session: { audio: { input: { transcription: { prompt: 'p'.repeat(5000) } } } } }),
        'invalid_value',
      ],
      [
        'update: language xx-YY',
        '{"type":"session.update","session":{"audio":{"input":{"transcription":{"language":"xx-YY"}}}}}',
        'invalid_value',
      ],
      ['update: include anything', '{"type":"session.update","session":{"include":["everything"]}}', 'invalid_value'],
      [
        'update: noise_reduction loud',
        '{"type":"session.update","session":{"audio":{"input":{"noise_reduction":{"type":"loud"}}}}}',
        'invalid_value',
      ],
    ];
    for (const [name, frame, code] of hostile) {
      const next = s.waitFor((x) => x.type === 'error');
      s.ws.send(frame);
      const e = await next;
      assert.equal(e.error.code, code, `${name}: ${JSON.stringify(e)}`);
      assert.match(e.event_id, /^event_/);
    }
    // A clear of nothing is answered, as on OpenAI.
    const cleared = s.waitFor((e) => e.type === 'input_audio_buffer.cleared');
    s.ws.send('{"type":"input_audio_buffer.clear"}');
    await cleared;
    // Out of order: audio before any session.update, then an update of what is now fixed.
    const updated = s.waitFor((e) => e.type === 'session.updated');
    s.ws.send(JSON.stringify({ type: 'session.update', session: { type: 'transcription', audio: { input: { turn_detection: null } } } }));
    await updated;
    const refused = s.waitFor((e) => e.type === 'error');
    s.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: speech24k.toString('base64') }));
    s.ws.send('{"type":"session.update","session":{"audio":{"input":{"format":{"type":"audio/pcmu"}}}}}');
    const fixed = await refused;
    assert.equal(fixed.error.code, 'invalid_value');
    assert.match(fixed.error.message, /fixed once audio/);
    // An odd number of bytes (carried to the next append), and an empty audio string (nothing).
    s.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.from([0, 0, 0]).toString('base64') }));
    s.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: '' }));
    const completed = s.waitFor((e) => e.type === 'conversation.item.input_audio_transcription.completed', 60_000);
    s.ws.send('{"type":"input_audio_buffer.commit","event_id":"c1"}');
    const done = await completed;
    assert.match(done.transcript.toLowerCase(), /report|quarterly|bring/);
    // The commit took everything: another is a commit of nothing.
    const again = s.waitFor((e) => e.type === 'error' && e.error.event_id === 'c2');
    s.ws.send('{"type":"input_audio_buffer.commit","event_id":"c2"}');
    const empty = await again;
    assert.equal(empty.error.code, 'input_audio_buffer_commit_empty');
    s.ws.close();
    assert.equal(await s.closed, 1005);
  });

  test('a huge append (3 MiB of base64, 47 s of audio) is taken; an event over 4 MiB closes with 1009', async () => {
    const s = await open();
    const big = Buffer.alloc(3 * 1024 * 1024 * 0.75);
    const completed = s.waitFor((e) => e.type === 'conversation.item.input_audio_transcription.completed', 60_000);
    s.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: big.toString('base64') }));
    s.ws.send('{"type":"input_audio_buffer.commit"}');
    const done = await completed;
    assert.ok(Math.abs(done.usage.seconds - big.length / 2 / 24000) < 0.01);
    s.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(4 * 1024 * 1024).toString('base64') }));
    assert.equal(await s.closed, 1009);
  });

  test('credits running out mid-item: .failed for the waiting item, an insufficient_credits error, close 1008, billed up to what was paid', async () => {
    // 4 credits: two seconds at cipher-max's 2 a second (gpt-4o-transcribe's mapping).
    const { apiKey: poor, accountId: poorAccount } = await createTestAccount(t.services, { credits: 4 });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=gpt-4o-transcribe`, {
      headers: { authorization: `Bearer ${poor}` },
    });
    const events: any[] = [];
    ws.on('message', (d) => events.push(JSON.parse(d.toString())));
    const closed = new Promise<number>((r) => ws.on('close', (c) => r(c)));
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    ws.send(JSON.stringify({ type: 'session.update', session: { type: 'transcription', audio: { input: { turn_detection: null } } } }));
    // The commit is announced first; the audio (5 s) is more than the balance pays for.
    ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(24000 * 2 * 5).toString('base64') }));
    ws.send('{"type":"input_audio_buffer.commit"}');
    assert.equal(await closed, 1008);
    const failed = events.find((e) => e.type === 'conversation.item.input_audio_transcription.failed');
    const committed = events.find((e) => e.type === 'input_audio_buffer.committed');
    assert.ok(committed && failed, JSON.stringify(events.map((e) => e.type)));
    assert.equal(failed.item_id, committed.item_id);
    assert.equal(events.find((e) => e.type === 'error')?.error.code, 'insufficient_credits');
    let rows: any[] = [];
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      rows = (await t.services.store.listUsage(poorAccount, 'live', 10)).filter((r) => r.kind === 'stt_realtime');
      await sleep(50);
    }
    assert.equal(rows[0]?.credits, 4);
  });

  test('every slot came back', async () => {
    for (let i = 0; i < 50 && (await t.services.limiter.slotsInUse(richAccount)) > 0; i++) await sleep(100);
    assert.equal(await t.services.limiter.slotsInUse(richAccount), 0);
    assert.equal((await t.services.metrics.realtimeStreams.get()).values[0]?.value ?? 0, 0);
  });
});
