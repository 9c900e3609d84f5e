// Issue 19's bad-input suite on the real-time socket: hostile upgrade requests (wrong query
// parameters, keys, handshakes) must be refused with the HTTP error body of docs/interface.md; inside
// an open stream, malformed control messages, unknown types, binary garbage, oversized and
// malformed frames and sending after close must get the protocol's Error messages and close codes
// of docs/realtime.md, never an internal error, never a crash; the slot comes back every time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { RealtimeServer } from '../../src/realtime/server.js';
import { opusSupported } from '../../src/stt/live/opus-decoder.js';
import { startHostileService, Tally, type HostileService } from './harness.js';
import { answerProblems } from './check.js';
import { junk, deepArray } from './corpus.js';
import { sendRaw } from './wire.js';
import { frameLevelCases, loopGuard, rawUpgrade, slotsInUse, WS_HEADERS, type LiveSession } from './live-socket.js';

let svc: HostileService;
let rt: RealtimeServer;
let port: number;
const tally = new Tally();
const guard = loopGuard(tally);
const measured = guard.measured;
const PATH = '/api/v1/stt/realtime/stream';

before(async () => {
  svc = await startHostileService();
  rt = new RealtimeServer(svc.t.services, { idleTimeoutMs: 3000, recognizerWaitMs: 5000 });
  port = await rt.listen(0, '127.0.0.1');
  await svc.t.services.registry.whenReady();
  guard.enable();
});

after(async () => {
  guard.disable();
  console.log(tally.summary('real-time socket'));
  await rt?.close();
  await svc?.close();
});

/** An upgrade request written by hand (live-socket.ts); the server's whole answer, parsed. */
const upgrade = (path: string, headers: Array<[string, string]> = []) =>
  rawUpgrade(
    (onConnect) => tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, onConnect),
    `127.0.0.1:${port}`,
    path,
    headers,
  );

const q = (params: Record<string, string>) => `${PATH}?${new URLSearchParams(params)}`;

const inUse = () => slotsInUse(svc);

describe('hostile upgrades are refused with the error body', () => {
  const refusals: Array<[string, () => string, Array<[string, string]>, number[]]> = [
    ['no key', () => q({}), WS_HEADERS, [401]],
    ['unknown key', () => q({ api_key: 'svc_live_' + '0'.repeat(40) }), WS_HEADERS, [401]],
    ['key of 8 KB', () => q({ api_key: 'k'.repeat(8000) }), WS_HEADERS, [401]],
    ['0-credit account', () => q({ api_key: svc.creds.broke }), WS_HEADERS, [402]],
    ['unknown model', () => q({ api_key: svc.creds.rich, model: 'nope' }), WS_HEADERS, [400]],
    ['unknown encoding', () => q({ api_key: svc.creds.rich, encoding: 'mp3' }), WS_HEADERS, [400]],
    ['sample_rate 4000', () => q({ api_key: svc.creds.rich, sample_rate: '4000' }), WS_HEADERS, [400]],
    ['sample_rate 1e309', () => q({ api_key: svc.creds.rich, sample_rate: '1e309' }), WS_HEADERS, [400]],
    ['sample_rate -1', () => q({ api_key: svc.creds.rich, sample_rate: '-1' }), WS_HEADERS, [400]],
    ['sample_rate of 400 digits', () => q({ api_key: svc.creds.rich, sample_rate: '9'.repeat(400) }), WS_HEADERS, [400]],
    ['endpointing abc', () => q({ api_key: svc.creds.rich, endpointing: 'abc' }), WS_HEADERS, [400]],
    ['utterance_end_ms 99999999', () => q({ api_key: svc.creds.rich, utterance_end_ms: '99999999' }), WS_HEADERS, [400]],
    ['interim_results maybe', () => q({ api_key: svc.creds.rich, interim_results: 'maybe' }), WS_HEADERS, [400]],
    ['punctuate NUL', () => `${PATH}?api_key=${svc.creds.rich}&punctuate=%00`, WS_HEADERS, [400]],
    ['bad percent-encoding', () => `${PATH}?api_key=${svc.creds.rich}&model=%ZZ`, WS_HEADERS, [400]],
    ['unsupported language', () => q({ api_key: svc.creds.rich, language: 'xx-YY' }), WS_HEADERS, [400]],
    ['wrong path', () => `/api/v1/stt/realtime/other?api_key=${svc.creds.rich}`, WS_HEADERS, [404]],
    ['dot-dot path', () => `/api/v1/stt/realtime/stream/../../../../package.json?api_key=${svc.creds.rich}`, WS_HEADERS, [404]],
    ['WebSocket version 7', () => q({ api_key: svc.creds.rich }), [...WS_HEADERS.slice(0, 3), ['Sec-WebSocket-Version', '7']], [400]],
    ['no Sec-WebSocket-Key', () => q({ api_key: svc.creds.rich }), [...WS_HEADERS.slice(0, 2), ['Sec-WebSocket-Version', '13']], [400]],
    [
      'Sec-WebSocket-Key of 8 KB',
      () => q({ api_key: svc.creds.rich }),
      [...WS_HEADERS.slice(0, 2), ['Sec-WebSocket-Key', 'k'.repeat(8000)], ['Sec-WebSocket-Version', '13']],
      [400],
    ],
    [
      'invalid Sec-WebSocket-Protocol',
      () => q({ api_key: svc.creds.rich }),
      [...WS_HEADERS, ['Sec-WebSocket-Protocol', 'a b, a, a']],
      [400],
    ],
    ['Upgrade: h2c', () => q({ api_key: svc.creds.rich }), [['Upgrade', 'h2c'], ...WS_HEADERS.slice(1)], [400, 404]],
    ['plain HTTPS request', () => q({ api_key: svc.creds.rich }), [], [404]],
  ];
  for (const [name, path, headers, statuses] of refusals) {
    test(name, async () => {
      const o = await measured(name, () => upgrade(path(), headers));
      tally.record(`upgrade: ${name}`, { outcome: o, loopDelayMs: 0, firstLoopDelayMs: 0, problems: [] });
      assert.deepEqual(answerProblems(o, 'GET', { status: statuses }), []);
    });
  }

  test('a refused handshake gives its slot, hold and recognizer back', async () => {
    await upgrade(q({ api_key: svc.creds.rich }), [...WS_HEADERS.slice(0, 3), ['Sec-WebSocket-Version', '7']]);
    await sleep(200);
    // The recognizer is free again (the test services have one): a new stream opens.
    const s = await open();
    s.ws.send(JSON.stringify({ type: 'CloseStream' }));
    assert.equal((await s.closed).code, 1000);
    assert.equal(await inUse(), 0, 'a slot is still held after the refused handshake');
  });
});

type Session = LiveSession;

function open(params: Record<string, string> = {}): Promise<Session> {
  const ws = new WebSocket(`wss://127.0.0.1:${port}${q({ api_key: svc.creds.rich, ...params })}`, {
    rejectUnauthorized: false,
    maxPayload: 1 << 24,
  });
  const messages: Array<Record<string, unknown>> = [];
  ws.on('message', (d, bin) => {
    if (!bin) messages.push(JSON.parse(d.toString()) as Record<string, unknown>);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages, closed }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
  });
}

async function until(pred: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(10);
  }
}

/** The stream's protocol answers: no internal error, and the close code is one docs/realtime.md or RFC 6455 names for the fault. */
function assertProtocol(s: Session, close: { code: number } | null, allowed: number[]): void {
  const internal = s.messages.filter((m) => m.type === 'Error' && m.code === 'INTERNAL_ERROR');
  assert.deepEqual(internal, [], 'an internal error was reported');
  for (const m of s.messages.filter((x) => x.type === 'Error'))
    assert.ok(typeof m.code === 'string' && typeof m.message === 'string', JSON.stringify(m));
  if (close) assert.ok(allowed.includes(close.code), `closed with ${close.code}; expected ${allowed.join(' or ')}`);
}

describe('hostile messages on an open stream', () => {
  const controls: Array<[string, string | Buffer]> = [
    ['invalid JSON', '{"type":'],
    ['empty text frame', ''],
    ['JSON null', 'null'],
    ['JSON array', '[{"type":"KeepAlive"}]'],
    ['JSON number', '42'],
    ['JSON string', '"KeepAlive"'],
    ['unknown type', '{"type":"Explode"}'],
    ['type in lower case', '{"type":"closestream"}'],
    ['type is an object', '{"type":{"toString":1}}'],
    ['type with NUL', '{"type":"CloseStream\\u0000"}'],
    ['__proto__ type', '{"__proto__":{"type":"CloseStream"}}'],
    ['deep JSON 100,000 levels', `{"type":${deepArray(100_000)}}`],
    ['900 KB text frame', JSON.stringify({ type: 'KeepAlive', pad: 'x'.repeat(900_000) })],
    ['lone surrogate text', '{"type":"\ud800"}'],
  ];
  for (const [name, frame] of controls) {
    test(`control message: ${name} gets an Error (or is ignored) and the stream goes on`, async () => {
      await measured(name, async () => {
        const s = await open();
        await until(() => s.messages.some((m) => m.type === 'Metadata'));
        s.ws.send(frame);
        s.ws.send(JSON.stringify({ type: 'KeepAlive' }));
        s.ws.send(JSON.stringify({ type: 'CloseStream' }));
        const close = await s.closed;
        assertProtocol(s, close, [1000]);
        assert.ok(
          s.messages.some((m) => m.type === 'Summary'),
          `no Summary: ${JSON.stringify(s.messages.map((m) => m.type))}`,
        );
        tally.record(`stream: ${name}`, {
          outcome: { kind: 'answer', res: { status: close.code, headers: {}, body: Buffer.alloc(0), trailers: {} }, ms: 0 },
          loopDelayMs: 0,
          firstLoopDelayMs: 0,
          problems: [],
        });
      });
    });
  }

  test('binary garbage as linear16 audio is transcribed as noise and billed, not a crash', async () => {
    await measured('binary garbage', async () => {
      const s = await open();
      for (const n of [1, 3, 4097, 16_001, 65_535]) s.ws.send(junk(n, n));
      s.ws.send(JSON.stringify({ type: 'Finalize' }));
      s.ws.send(JSON.stringify({ type: 'CloseStream' }));
      const close = await s.closed;
      assertProtocol(s, close, [1000]);
      assert.ok(s.messages.some((m) => m.type === 'Summary'));
    });
  });

  test('binary garbage with encoding=opus: INVALID_AUDIO and close 1007', async () => {
    // ffmpeg is a test dependency (scripts/setup.sh): without it this case would check nothing.
    assert.ok(await opusSupported(), 'no Opus decoder (ffmpeg) on this machine: npm test installs it');
    await measured('opus garbage', async () => {
      const s = await open({ encoding: 'opus' });
      s.ws.send(junk(5000));
      const close = await s.closed;
      assertProtocol(s, close, [1007]);
      assert.ok(s.messages.some((m) => m.type === 'Error' && m.code === 'INVALID_AUDIO'));
    });
  });

  frameLevelCases({
    open: () => open(),
    measured,
    check: assertProtocol,
    ready: (s) => until(() => s.messages.some((m) => m.type === 'Metadata')),
  });

  test('sending after CloseStream and after close is ignored', async () => {
    await measured('after close', async () => {
      const s = await open();
      s.ws.send(JSON.stringify({ type: 'CloseStream' }));
      s.ws.send(junk(3200));
      s.ws.send(JSON.stringify({ type: 'Finalize' }));
      s.ws.send('{"type":');
      const close = await s.closed;
      assertProtocol(s, close, [1000]);
      assert.equal(s.messages.filter((m) => m.type === 'Summary').length, 1);
      const late = await new Promise<Error | undefined>((resolve) => s.ws.send('{"type":"KeepAlive"}', resolve));
      assert.ok(late instanceof Error, 'a send after close went out');
    });
  });

  test('a client that vanishes mid-stream (no close frame) frees its slot', async () => {
    const s = await open();
    s.ws.send(junk(3200));
    (s.ws as unknown as { _socket: tls.TLSSocket })._socket.destroy();
    await s.closed;
    await until(() => rt.activeStreams === 0, 10_000);
  });

  test('after all of it: no stream left, the slot count is 0, the service answers', async () => {
    await until(() => rt.activeStreams === 0, 10_000);
    await sleep(200);
    assert.equal(await inUse(), 0);
    const health = await sendRaw(svc.port, { method: 'GET', path: '/health', headers: [], body: Buffer.alloc(0) }, 10_000);
    assert.equal(health.kind === 'answer' && health.res.status, 200);
  });
});
