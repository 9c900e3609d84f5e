// Issue 19's bad-input suite on Deepgram's live socket (WS /v1/listen on the API port): hostile
// upgrade requests (query parameters, keys in the header and in the subprotocols, handshakes) must
// be refused with Deepgram's error body ({err_code, err_msg, request_id}, dg-request-id); inside an
// open stream, garbage text frames, binary garbage, oversized and malformed frames, empty frames and
// sending after CloseStream must get Deepgram-shaped Error messages and the close frames of
// docs/compatibility.md, never an internal error, never a crash or a hang; the slot comes back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { ERRORS, type ErrorCode } from '../../src/errors.js';
import { opusSupported } from '../../src/stt/live/opus-decoder.js';
import { SETTINGS, startHostileService, Tally, type HostileService } from './harness.js';
import { junk, deepArray } from './corpus.js';
import { parseResponse, sendRaw, type Outcome } from './wire.js';
import { frameLevelCases, loopGuard, rawUpgrade, slotsInUse, WS_HEADERS, type LiveSession } from './live-socket.js';

let svc: HostileService;
const tally = new Tally();
const guard = loopGuard(tally);
const measured = guard.measured;
const PATH = '/v1/listen';

before(async () => {
  svc = await startHostileService();
  await svc.t.services.registry.whenReady();
  guard.enable();
});

after(async () => {
  guard.disable();
  console.log(tally.summary('Deepgram live socket'));
  await svc?.close();
});

/** An upgrade request written by hand (live-socket.ts); the server's whole answer, parsed. */
const upgrade = (path: string, headers: Array<[string, string]> = []) =>
  rawUpgrade((onConnect) => net.connect(svc.port, '127.0.0.1', onConnect), `127.0.0.1:${svc.port}`, path, headers);

/** Problems with a refusal: not one of `statuses`, or not Deepgram's error body and headers. */
function deepgramRefusalProblems(o: Outcome, statuses: number[]): string[] {
  if (o.kind !== 'answer') return [`${o.kind} after ${Math.round(o.ms)} ms`];
  const { res } = o;
  const out: string[] = [];
  if (!statuses.includes(res.status))
    out.push(`status ${res.status}; expected ${statuses.join(' or ')}: ${res.body.subarray(0, 200).toString()}`);
  if (!/^application\/json/.test(res.headers['content-type'] ?? '')) out.push('not JSON');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return [...out, `body is not JSON: ${res.body.subarray(0, 160).toString()}`];
  }
  if (JSON.stringify(Object.keys(body).sort()) !== JSON.stringify(['err_code', 'err_msg', 'parla_code', 'request_id']))
    out.push(`body keys ${JSON.stringify(Object.keys(body))}`);
  if (typeof body.err_code !== 'string' || typeof body.err_msg !== 'string' || body.err_msg === '') out.push('err_code / err_msg missing');
  const spec = ERRORS[body.parla_code as ErrorCode] as (typeof ERRORS)[ErrorCode] | undefined;
  if (!spec) out.push(`unknown parla_code ${JSON.stringify(body.parla_code)}`);
  else if (spec.status !== res.status) out.push(`${String(body.parla_code)} is ${spec.status} in the table, answered ${res.status}`);
  if (!/^req_[0-9a-f]{32}$/.test(String(body.request_id))) out.push(`request_id ${JSON.stringify(body.request_id)}`);
  if (res.headers['x-request-id'] !== body.request_id || res.headers['dg-request-id'] !== body.request_id)
    out.push('X-Request-ID / dg-request-id differ from request_id');
  return out;
}

const auth = (key: string): Array<[string, string]> => [...WS_HEADERS, ['Authorization', `Token ${key}`]];
const q = (params: Record<string, string>) => `${PATH}?${new URLSearchParams(params)}`;

const inUse = () => slotsInUse(svc);

const openStreams = async () => (await svc.t.services.metrics.realtimeStreams.get()).values[0]?.value ?? 0;

describe("hostile upgrades are refused with Deepgram's error body", () => {
  const rich = () => svc.creds.rich;
  const refusals: Array<[string, () => string, () => Array<[string, string]>, number[]]> = [
    ['no key', () => q({ model: 'base' }), () => WS_HEADERS, [401]],
    ['unknown key', () => q({}), () => auth('svc_live_' + '0'.repeat(40)), [401]],
    ['key of 8 KB', () => q({}), () => auth('k'.repeat(8000)), [401]],
    ['Authorization: Basic', () => q({}), () => [...WS_HEADERS, ['Authorization', `Basic ${rich()}`]], [401]],
    ['token subprotocol without a key', () => q({}), () => [...WS_HEADERS, ['Sec-WebSocket-Protocol', 'token']], [401]],
    [
      'token subprotocol with an unknown key',
      () => q({}),
      () => [...WS_HEADERS, ['Sec-WebSocket-Protocol', 'token, svc_live_nope']],
      [401],
    ],
    ['malformed Sec-WebSocket-Protocol', () => q({}), () => [...WS_HEADERS, ['Sec-WebSocket-Protocol', `token, ${rich()}, token`]], [400]],
    ['0-credit account', () => q({}), () => auth(svc.creds.broke), [402]],
    ['unknown model', () => q({ model: 'nope' }), () => auth(rich()), [400]],
    ['model of 5,000 characters', () => q({ model: 'nova-'.repeat(1000) }), () => auth(rich()), [400]],
    ['encoding mp3', () => q({ encoding: 'mp3' }), () => auth(rich()), [400]],
    ['encoding __proto__', () => q({ encoding: '__proto__' }), () => auth(rich()), [400]],
    ['sample_rate 4000', () => q({ sample_rate: '4000' }), () => auth(rich()), [400]],
    ['sample_rate 1e309', () => q({ sample_rate: '1e309' }), () => auth(rich()), [400]],
    ['sample_rate of 400 digits', () => q({ sample_rate: '9'.repeat(400) }), () => auth(rich()), [400]],
    ['channels 2', () => q({ channels: '2' }), () => auth(rich()), [400]],
    ['endpointing abc', () => q({ endpointing: 'abc' }), () => auth(rich()), [400]],
    ['utterance_end_ms 99999999', () => q({ utterance_end_ms: '99999999' }), () => auth(rich()), [400]],
    ['interim_results maybe', () => q({ interim_results: 'maybe' }), () => auth(rich()), [400]],
    ['vad_events twice, differently', () => `${PATH}?vad_events=true&vad_events=false`, () => auth(rich()), [400]],
    ['punctuate NUL', () => `${PATH}?punctuate=%00`, () => auth(rich()), [400]],
    ['redact=pii (an entity group not detected here)', () => q({ redact: 'pii' }), () => auth(rich()), [400]],
    ['redact of 2,001 characters', () => q({ redact: 'pci,'.repeat(501) }), () => auth(rich()), [400]],
    ['profanity_filter=1', () => q({ profanity_filter: '1' }), () => auth(rich()), [400]],
    ['diarize=true (not live)', () => q({ diarize: 'true' }), () => auth(rich()), [400]],
    ['callback (not live)', () => q({ callback: 'http://127.0.0.1:1/' }), () => auth(rich()), [400]],
    ['unsupported language', () => q({ language: 'xx-YY' }), () => auth(rich()), [400]],
    [
      'WebSocket version 7',
      () => q({}),
      () => [...WS_HEADERS.slice(0, 3), ['Sec-WebSocket-Version', '7'], ['Authorization', `Token ${rich()}`]],
      [400],
    ],
    [
      'no Sec-WebSocket-Key',
      () => q({}),
      () => [...WS_HEADERS.slice(0, 2), ['Sec-WebSocket-Version', '13'], ['Authorization', `Token ${rich()}`]],
      [400],
    ],
    ['POST instead of GET', () => q({}), () => auth(rich()), [400]],
  ];
  for (const [name, path, headers, statuses] of refusals) {
    test(name, async () => {
      const o = await measured(name, () => (name.startsWith('POST') ? rawPost(path(), headers()) : upgrade(path(), headers())));
      tally.record(`upgrade: ${name}`, { outcome: o, loopDelayMs: 0, firstLoopDelayMs: 0, problems: [] });
      assert.deepEqual(deepgramRefusalProblems(o, statuses), []);
    });
  }

  test('a refused handshake gives its slot, hold and recognizer back', async () => {
    await upgrade(q({}), [...WS_HEADERS.slice(0, 3), ['Sec-WebSocket-Version', '7'], ['Authorization', `Token ${svc.creds.rich}`]]);
    await sleep(200);
    const s = await open();
    s.ws.send(JSON.stringify({ type: 'CloseStream' }));
    assert.equal((await s.closed).code, 1000);
    assert.equal(await inUse(), 0, 'a slot is still held after the refused handshake');
  });
});

/** An upgrade whose method is POST (Node hands it to the upgrade listener all the same). */
function rawPost(path: string, headers: Array<[string, string]>): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = net.connect(svc.port, '127.0.0.1', () => {
      socket.write(
        [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${svc.port}`, 'Content-Length: 0', ...headers.map(([k, v]) => `${k}: ${v}`)].join(
          '\r\n',
        ) + '\r\n\r\n',
      );
    });
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), SETTINGS.timeoutMs);
    socket.on('close', () => {
      clearTimeout(timer);
      const res = parseResponse(Buffer.concat(chunks), false);
      resolve(
        res
          ? { kind: 'answer', res, ms: performance.now() - started }
          : { kind: 'no-answer', ms: performance.now() - started, error: 'closed without an answer' },
      );
    });
  });
}

type Session = LiveSession;

function open(params: Record<string, string> = {}): Promise<Session> {
  const ws = new WebSocket(`ws://127.0.0.1:${svc.port}${q({ model: 'base', ...params })}`, {
    headers: { authorization: `Token ${svc.creds.rich}` },
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

async function until(pred: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(10);
  }
}

/** No internal error; every Error message in Deepgram's body; the close code one the dialect or RFC 6455 names for the fault. */
function assertProtocol(s: Session, close: { code: number } | null, allowed: number[]): void {
  const errors = s.messages.filter((m) => m.type === 'Error');
  assert.deepEqual(
    errors.filter((m) => m.parla_code === 'INTERNAL_ERROR'),
    [],
    'an internal error was reported',
  );
  for (const m of errors)
    assert.ok(typeof m.err_code === 'string' && typeof m.err_msg === 'string' && /^req_/.test(String(m.request_id)), JSON.stringify(m));
  if (close) assert.ok(allowed.includes(close.code), `closed with ${close.code}; expected ${allowed.join(' or ')}`);
}

describe('hostile messages on an open stream', () => {
  const controls: Array<[string, string]> = [
    ['invalid JSON', '{"type":'],
    ['empty text frame', ''],
    ['JSON null', 'null'],
    ['JSON array', '[{"type":"KeepAlive"}]'],
    ['unknown type', '{"type":"Explode"}'],
    ['type in lower case', '{"type":"closestream"}'],
    ['type is an object', '{"type":{"toString":1}}'],
    ['__proto__ type', '{"__proto__":{"type":"CloseStream"}}'],
    ['deep JSON 100,000 levels', `{"type":${deepArray(100_000)}}`],
    ['900 KB text frame', JSON.stringify({ type: 'KeepAlive', pad: 'x'.repeat(900_000) })],
    ['lone surrogate text', '{"type":"\ud800"}'],
  ];
  for (const [name, frame] of controls) {
    test(`control message: ${name} gets a Deepgram Error (or is ignored) and the stream goes on`, async () => {
      await measured(name, async () => {
        const s = await open();
        s.ws.send(frame);
        s.ws.send(JSON.stringify({ type: 'KeepAlive' }));
        s.ws.send(JSON.stringify({ type: 'CloseStream' }));
        const close = await s.closed;
        assertProtocol(s, close, [1000]);
        assert.equal(s.messages.at(-1)?.type, 'Metadata', `no closing Metadata: ${JSON.stringify(s.messages.map((m) => m.type))}`);
        tally.record(`stream: ${name}`, {
          outcome: { kind: 'answer', res: { status: close.code, headers: {}, body: Buffer.alloc(0), trailers: {} }, ms: 0 },
          loopDelayMs: 0,
          firstLoopDelayMs: 0,
          problems: [],
        });
      });
    });
  }

  test('Configure (issue 31): every message gets exactly one ConfigureSuccess or ConfigureFailure, a failed one changes nothing, the stream goes on', async () => {
    await measured('Configure', async () => {
      // No keyterm (a boosted recognizer is a scarcer one): the stream's keyterms are [].
      const s = await open();
      const bad: unknown[] = [
        { type: 'Configure', keyterms: 'Parla' },
        { type: 'Configure', keyterms: [1, 2] },
        { type: 'Configure', keyterms: [null] },
        { type: 'Configure', keyterms: { 0: 'Parla' } },
        { type: 'Configure', keyterms: Array.from({ length: 101 }, (_, i) => `t${i}`) },
        { type: 'Configure', keyterms: ['x'.repeat(101)] },
        { type: 'Configure', keyterms: ['Parla'], features: { numerals: 'yes' } },
        { type: 'Configure', features: { numerals: 'yes' } },
        { type: 'Configure', features: { sentiment: true } },
        '{"type":"Configure","features":{"__proto__":{"numerals":true}}}',
        { type: 'Configure', features: { constructor: true } },
        { type: 'Configure', features: [true] },
        { type: 'Configure', features: 'numerals' },
        { type: 'Configure', keyterms: Array.from({ length: 5000 }, (_, i) => `t${i}`) },
      ];
      // Each answered with the keyterms in effect from the next utterance.
      const good: Array<[unknown, string[]]> = [
        [{ type: 'Configure' }, []],
        [{ type: 'Configure', keyterms: null }, []],
        [{ type: 'Configure', keyterms: ['another term', ' Parla '] }, ['another term', 'Parla']],
        [{ type: 'Configure', features: { numerals: true } }, ['another term', 'Parla']],
        [{ type: 'Configure', keyterms: [' ', ''], features: { numerals: true, punctuate: false, smart_format: false } }, []],
        [{ type: 'Configure', keyterms: ['\u0000', 'x'.repeat(100), '💥'] }, ['\u0000', 'x'.repeat(100), '💥']],
        [{ type: 'Configure', features: null, keyterms: [] }, []],
      ];
      for (const m of [...bad, ...good.map(([g]) => g)]) s.ws.send(typeof m === 'string' ? m : JSON.stringify(m));
      s.ws.send('{"type":"Configure","features":' + deepArray(100_000) + '}');
      await until(
        () => s.messages.filter((m) => m.type === 'ConfigureSuccess' || m.type === 'ConfigureFailure').length >= bad.length + good.length,
      );
      const answers = s.messages.filter((m) => m.type === 'ConfigureSuccess' || m.type === 'ConfigureFailure');
      assert.deepEqual(
        answers.slice(0, bad.length + good.length).map((m) => m.type),
        [...bad.map(() => 'ConfigureFailure'), ...good.map(() => 'ConfigureSuccess')],
      );
      for (const a of answers) assert.match(String(a.request_id), /^req_/);
      assert.deepEqual(
        answers.filter((m) => m.type === 'ConfigureSuccess').map((a) => a.keyterms),
        good.map(([, k]) => k),
      );
      for (const a of answers.filter((m) => m.type === 'ConfigureFailure'))
        assert.ok(typeof a.description === 'string' && a.description.length < 400);
      s.ws.send(JSON.stringify({ type: 'CloseStream' }));
      const close = await s.closed;
      assertProtocol(s, close, [1000]);
      assert.equal(s.messages.at(-1)?.type, 'Metadata');
    });
  });

  test('a burst of 1,000 Configures with other keyterms (decision #76): each answered once, coalesced to the latest, a few recognizers taken, not 1,000; the stream goes on', async () => {
    await measured('Configure burst', async () => {
      const engine = svc.t.services.registry.sttBinding('cipher-fast' as never)!.engine;
      const opened: Array<string[] | undefined> = [];
      const openStream = engine.openStream.bind(engine);
      engine.openStream = (o) => (opened.push(o.keywords), openStream(o));
      try {
        const s = await open({ encoding: 'linear16', sample_rate: '16000' });
        const tone = Buffer.alloc(32000 * 2);
        for (let i = 0; i < tone.length / 2; i++) tone.writeInt16LE(Math.round(8000 * Math.sin(i / 5)), i * 2);
        s.ws.send(tone);
        for (let i = 0; i < 1000; i++) s.ws.send(JSON.stringify({ type: 'Configure', keyterms: [`term${i}`, 'Parla'] }));
        s.ws.send(tone);
        await until(() => s.messages.filter((m) => m.type === 'ConfigureSuccess' || m.type === 'ConfigureFailure').length >= 1000, 30_000);
        const answers = s.messages.filter((m) => m.type === 'ConfigureSuccess' || m.type === 'ConfigureFailure');
        assert.equal(answers.length, 1000);
        assert.ok(answers.every((a) => a.type === 'ConfigureSuccess'));
        assert.deepEqual(answers.at(-1)!.keyterms, ['term999', 'Parla']);
        s.ws.send(JSON.stringify({ type: 'Finalize' }));
        s.ws.send(tone);
        s.ws.send(JSON.stringify({ type: 'CloseStream' }));
        const close = await s.closed;
        assertProtocol(s, close, [1000]);
        assert.equal(s.messages.at(-1)?.type, 'Metadata');
        // The stream's first recognizer, then at most one per utterance boundary; the last boosts the latest list.
        assert.ok(
          opened.length >= 2 && opened.length <= 4,
          `recognizers taken: ${opened.length} ${JSON.stringify(s.messages.filter((m) => m.type !== 'ConfigureSuccess'))}`,
        );
        assert.deepEqual(opened.at(-1), ['term999', 'Parla']);
      } finally {
        engine.openStream = openStream;
      }
    });
  });

  test('Configure, Finalize and a frame of audio alternated 40 times, each round answered before the next (decision #76): keyterms change at most once per second of audio, not per frame', async () => {
    await measured('Configure churn', async () => {
      const engine = svc.t.services.registry.sttBinding('cipher-fast' as never)!.engine;
      const opened: Array<string[] | undefined> = [];
      const openStream = engine.openStream.bind(engine);
      engine.openStream = (o) => (opened.push(o.keywords), openStream(o));
      try {
        const s = await open({ encoding: 'linear16', sample_rate: '16000' });
        const frame = Buffer.alloc(3200); // 0.1 s of silence
        // Each round waits for the last one's Finalize to be answered, so no two Configures coalesce.
        for (let i = 0; i < 40; i++) {
          s.ws.send(frame);
          s.ws.send(JSON.stringify({ type: 'Configure', keyterms: [`word${i}`] }));
          s.ws.send(frame);
          s.ws.send(JSON.stringify({ type: 'Finalize' }));
          await until(() => s.messages.filter((m) => m.type === 'Results' && m.from_finalize).length > i, 30_000);
        }
        assert.equal(s.messages.filter((m) => m.type === 'ConfigureSuccess').length, 40);
        s.ws.send(JSON.stringify({ type: 'CloseStream' }));
        const close = await s.closed;
        assertProtocol(s, close, [1000]);
        // 8 s of audio: the first recognizer, then at most one change per second of it.
        assert.ok(opened.length >= 2 && opened.length <= 10, `recognizers taken: ${opened.length}`);
      } finally {
        engine.openStream = openStream;
      }
    });
  });

  test("an unknown message type is answered in Deepgram's error body", async () => {
    const s = await open();
    s.ws.send('{"type":"Explode"}');
    await until(() => s.messages.some((m) => m.type === 'Error'));
    const err = s.messages.find((m) => m.type === 'Error')!;
    assert.equal(err.err_code, 'Bad Request');
    assert.match(String(err.err_msg), /Explode/);
    s.ws.send(JSON.stringify({ type: 'CloseStream' }));
    assert.equal((await s.closed).code, 1000);
  });

  test('binary garbage as linear16 audio is transcribed as noise and billed, not a crash', async () => {
    await measured('binary garbage', async () => {
      const s = await open({ interim_results: 'true', encoding: 'linear16', sample_rate: '16000' });
      for (const n of [1, 3, 4097, 16_001, 65_535]) s.ws.send(junk(n, n));
      s.ws.send(JSON.stringify({ type: 'Finalize' }));
      s.ws.send(JSON.stringify({ type: 'CloseStream' }));
      const close = await s.closed;
      assertProtocol(s, close, [1000]);
      assert.equal(s.messages.at(-1)?.type, 'Metadata');
    });
  });

  test('binary garbage with encoding=opus: a Deepgram Error, then close 1008 DATA-0000', async () => {
    assert.ok(await opusSupported(), 'no Opus decoder (ffmpeg) on this machine: npm test installs it');
    await measured('opus garbage', async () => {
      const s = await open({ encoding: 'opus' });
      s.ws.send(junk(5000));
      const close = await s.closed;
      assertProtocol(s, close, [1008]);
      assert.match(close.reason, /^DATA-0000/);
      assert.ok(s.messages.some((m) => m.type === 'Error' && m.parla_code === 'INVALID_AUDIO'));
    });
  });

  test("an empty binary frame is Deepgram's old CloseStream: the closing Metadata, then 1000", async () => {
    const s = await open({ encoding: 'linear16', sample_rate: '16000' });
    s.ws.send(junk(3200));
    s.ws.send(Buffer.alloc(0));
    const close = await s.closed;
    assertProtocol(s, close, [1000]);
    assert.equal(s.messages.at(-1)?.type, 'Metadata');
    assert.equal(s.messages.at(-1)?.duration, 0.1);
  });

  // No `encoding`: the stream must be a container (decision #43). Garbage, and garbage behind each
  // container's signature, ends the stream with DATA-0000 or an empty result; never a crash, a
  // hang, an internal error or a bill for undecoded bytes.
  const riff = (tag: string) => Buffer.concat([Buffer.from('RIFF'), Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from(tag)]);
  const headed: Array<[string, Buffer[]]> = [
    ['random bytes', [junk(5000)]],
    ['RIFF that is not WAVE', [riff('AVI '), junk(4000)]],
    ['a WAV header then garbage', [riff('WAVE'), junk(4000)]],
    ['a WAV signature split over single-byte frames', [...[...riff('WAVE')].map((b) => Buffer.from([b])), junk(4000)]],
    ['fLaC then garbage', [Buffer.from('fLaC'), junk(4000)]],
    ['ID3 then garbage', [Buffer.from('ID3'), junk(4000)]],
    ['an MPEG frame sync then garbage', [Buffer.from([0xff, 0xfb, 0x90, 0x64]), junk(4000)]],
    ['OggS then garbage', [Buffer.from('OggS'), junk(4000)]],
    ['the WebM magic then garbage', [Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), junk(4000)]],
  ];
  for (const [name, frames] of headed) {
    test(`no encoding, ${name}: DATA-0000 (1008) or an empty result, nothing billed`, async () => {
      assert.ok(await opusSupported(), 'no ffmpeg on this machine: npm test installs it');
      await measured(`container: ${name}`, async () => {
        const s = await open();
        for (const f of frames) s.ws.send(f);
        s.ws.send(JSON.stringify({ type: 'CloseStream' }));
        const close = await s.closed;
        assertProtocol(s, close, [1000, 1008]);
        if (close.code === 1008) {
          assert.match(close.reason, /^DATA-0000/);
          assert.ok(s.messages.some((m) => m.type === 'Error' && m.parla_code === 'INVALID_AUDIO'));
        }
        const meta = s.messages.find((m) => m.type === 'Metadata');
        assert.ok(!meta || Number(meta.duration) < 0.5, `billed ${String(meta?.duration)} s of undecodable bytes`);
      });
    });
  }

  test('no encoding, three bytes then CloseStream: closed 1000, nothing decoded', async () => {
    const s = await open();
    s.ws.send(Buffer.from('RIF'));
    s.ws.send(JSON.stringify({ type: 'CloseStream' }));
    const close = await s.closed;
    assertProtocol(s, close, [1000]);
    assert.equal(s.messages.at(-1)?.duration, 0);
  });

  test('no encoding but sample_rate 4000 beside it: refused 400 before the upgrade', async () => {
    await assert.rejects(open({ sample_rate: '4000' }), /refused with 400/);
  });

  frameLevelCases({ open: () => open(), measured, check: assertProtocol });

  test('binary before and after CloseStream: what came before is counted, what came after is ignored', async () => {
    await measured('after close', async () => {
      const s = await open({ encoding: 'linear16', sample_rate: '16000' });
      s.ws.send(junk(3200));
      s.ws.send(JSON.stringify({ type: 'CloseStream' }));
      s.ws.send(junk(3200));
      s.ws.send(JSON.stringify({ type: 'Finalize' }));
      s.ws.send('{"type":');
      const close = await s.closed;
      assertProtocol(s, close, [1000]);
      const metas = s.messages.filter((m) => m.type === 'Metadata');
      assert.equal(metas.length, 1);
      assert.equal(metas[0]!.duration, 0.1, 'only the audio before CloseStream counts');
      const late = await new Promise<Error | undefined>((resolve) => s.ws.send('{"type":"KeepAlive"}', resolve));
      assert.ok(late instanceof Error, 'a send after close went out');
    });
  });

  test('a client that vanishes mid-stream (no close frame) frees its slot', async () => {
    const s = await open();
    s.ws.send(junk(3200));
    (s.ws as unknown as { _socket: net.Socket })._socket.destroy();
    await s.closed;
    await until(async () => (await openStreams()) === 0);
  });

  test('after all of it: no stream left, the slot count is 0, the service answers', async () => {
    await until(async () => (await openStreams()) === 0);
    await sleep(200);
    assert.equal(await inUse(), 0);
    const health = await sendRaw(svc.port, { method: 'GET', path: '/health', headers: [], body: Buffer.alloc(0) }, 10_000);
    assert.equal(health.kind === 'answer' && health.res.status, 200);
  });
});
