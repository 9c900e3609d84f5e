// Hostile input on the Wyoming port: broken headers, lengths over the limits, binary garbage,
// slow-drip partial lines, floods of tiny events, audio out of order, and the streamed transcript's
// events sent the wrong way or out of turn. Each gets an `error` event (with text and code);
// framing errors close the connection; the node keeps answering.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { WyomingServer } from '../../src/wyoming/server.js';
import { EventReader, FrameError, encodeEvent } from '../../src/wyoming/framing.js';
import { WyomingTestClient } from '../helpers/wyoming-client.js';
import { readFileSync } from 'node:fs';
import { flite } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

let t: TestApp;
let server: WyomingServer;
let port: number;

before(async () => {
  t = await createTestApp();
  const { apiKey } = await createTestAccount(t.services, { credits: 100_000 });
  server = new WyomingServer(t.services, { apiKey, frameTimeoutMs: 600, idleTimeoutMs: 3000 });
  port = await server.listen(0, '127.0.0.1');
});
after(async () => {
  await server.close();
  await t.close();
});

/** The node still answers a describe on a fresh connection. */
async function stillServing(): Promise<void> {
  const c = await WyomingTestClient.connect(port);
  c.send('describe');
  const info = await c.waitFor((e) => e.type === 'info', 10_000);
  assert.ok(Array.isArray(info.data.tts));
  c.close();
}

/** Sends bytes, expects one error event with `code`, then the server closing the connection. */
async function closedWithError(bytes: Buffer | string, code: string | RegExp): Promise<void> {
  const c = await WyomingTestClient.connect(port);
  c.sendRaw(bytes);
  const err = await c.waitFor((e) => e.type === 'error', 10_000);
  if (typeof code === 'string') assert.equal(err.data.code, code);
  else assert.match(err.data.code, code);
  assert.equal(typeof err.data.text, 'string');
  await c.closedPromise;
  await stillServing();
}

describe('Wyoming framing', () => {
  test('malformed header lines: an error event, then the connection is closed', async () => {
    await closedWithError('{"type": "describe"\n', 'invalid_json');
    await closedWithError('not json at all\n', 'invalid_json');
    await closedWithError('[1,2,3]\n', 'invalid_json');
    await closedWithError('{"data": {}}\n', 'invalid_frame');
    await closedWithError('{"type": 42}\n', 'invalid_frame');
    await closedWithError('{"type": "DESCRIBE; rm -rf"}\n', 'invalid_frame');
    await closedWithError('{"type": "synthesize", "data": [1]}\n', 'invalid_frame');
    await closedWithError('{"type": "audio-chunk", "payload_length": -1}\n', 'invalid_frame');
    await closedWithError('{"type": "audio-chunk", "payload_length": 1.5}\n', 'invalid_frame');
    await closedWithError('{"type": "audio-chunk", "payload_length": "10"}\n', 'invalid_frame');
    await closedWithError('{"type": "synthesize", "data_length": 5}\nhello', 'invalid_json');
    await closedWithError('{"type": "synthesize", "data_length": 3}\n[1]', 'invalid_json');
  });

  test('huge lengths are refused at once, without waiting for the bytes', async () => {
    await closedWithError('{"type": "audio-chunk", "payload_length": 999999999999}\n', 'frame_too_large');
    await closedWithError('{"type": "synthesize", "data_length": 50000000}\n', 'frame_too_large');
    await closedWithError(`{"type": "x", "payload_length": ${Number.MAX_SAFE_INTEGER * 4}}\n`, /invalid_frame|frame_too_large/);
  });

  test('a header line longer than the limit, with no newline, is refused before it is all buffered', async () => {
    const c = await WyomingTestClient.connect(port);
    const block = Buffer.alloc(64 * 1024, 0x61);
    // 2 MiB of header; the server gives up at its 1 MiB limit.
    for (let i = 0; i < 32 && !c.closed; i++) c.sendRaw(block);
    const err = await c.waitFor((e) => e.type === 'error', 10_000);
    assert.equal(err.data.code, 'frame_too_large');
    await c.closedPromise;
    await stillServing();
  });

  test('binary garbage', async () => {
    for (let i = 0; i < 20; i++) {
      const junk = randomBytes(4096);
      junk[100] = 0x0a;
      await closedWithError(junk, /invalid_json|invalid_frame|frame_too_large/);
    }
    // Garbage after a good event: the good one is answered, then the error.
    const c = await WyomingTestClient.connect(port);
    c.sendRaw(Buffer.concat([encodeEvent('describe'), Buffer.from('\x00\xff\xfe garbage\n')]));
    await c.waitFor((e) => e.type === 'error', 10_000);
    assert.deepEqual(
      c.events.map((e) => e.type),
      ['info', 'error'],
    );
    await c.closedPromise;
  });

  test('slowloris: a partial line dripped slowly is closed after the frame timeout', async () => {
    const c = await WyomingTestClient.connect(port);
    const line = '{"type": "describe", "data": {"x": "' + 'y'.repeat(200) + '"}}';
    let i = 0;
    const drip = setInterval(() => {
      if (c.closed || i >= line.length) return clearInterval(drip);
      c.sendRaw(line[i++]!);
    }, 50);
    const err = await c.waitFor((e) => e.type === 'error', 10_000);
    clearInterval(drip);
    assert.equal(err.data.code, 'timeout');
    await c.closedPromise;
    await stillServing();
  });

  test('a steady stream whose every write ends mid-event is not taken for slowloris', async () => {
    // Frame timeout 600 ms; 2 s of events, each write carrying the end of one and the start of the next.
    const c = await WyomingTestClient.connect(port);
    const events = Buffer.concat(Array.from({ length: 20 }, (_, i) => encodeEvent('ping', { text: String(i) })));
    const step = Math.ceil(events.length / 20) + 7;
    for (let at = 0; at < events.length; at += step) {
      c.sendRaw(events.subarray(at, at + step));
      await new Promise((r) => setTimeout(r, 100));
    }
    await c.waitFor((e) => e.type === 'pong' && e.data.text === '19', 10_000);
    assert.equal(
      c.events.some((e) => e.type === 'error'),
      false,
    );
    assert.equal(c.closed, false);
    c.close();
  });

  test('a silent connection is closed after the idle timeout', async () => {
    const c = await WyomingTestClient.connect(port);
    await c.closedPromise;
    assert.equal(c.events[0]?.data.code, 'timeout');
  });

  test('many connections dropped mid-frame leave nothing behind', async () => {
    const clients = await Promise.all(Array.from({ length: 50 }, () => WyomingTestClient.connect(port)));
    for (const c of clients) c.sendRaw('{"type": "audio-chunk", "payload_length": 100000}\n' + 'x'.repeat(500));
    await new Promise((r) => setTimeout(r, 100));
    for (const c of clients) c.close();
    await Promise.all(clients.map((c) => c.closedPromise));
    await stillServing();
    for (let i = 0; i < 50 && server.connectionCount > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(server.connectionCount, 0);
  });
});

describe('Wyoming events', () => {
  test('thousands of tiny events: every ping answered in order, the node answers others meanwhile', async () => {
    const c = await WyomingTestClient.connect(port);
    const n = 5000;
    c.sendRaw(Buffer.concat(Array.from({ length: n }, (_, i) => encodeEvent('ping', { text: String(i) }))));
    await stillServing();
    await c.waitFor((e) => e.type === 'pong' && e.data.text === String(n - 1), 30_000);
    assert.equal(c.events.length, n);
    assert.ok(c.events.every((e, i) => e.type === 'pong' && e.data.text === String(i)));
    c.close();
  });

  test('a flood of unknown events: errors, then the connection is closed', async () => {
    const c = await WyomingTestClient.connect(port);
    c.sendRaw(Buffer.concat(Array.from({ length: 3000 }, () => encodeEvent('run-satellite'))));
    await c.closedPromise;
    const errors = c.events.filter((e) => e.type === 'error');
    assert.ok(errors.length >= 1 && errors.length <= 20, String(errors.length));
    assert.equal(errors[0]!.data.code, 'unknown_event');
    await stillServing();
  });

  test('audio out of order and wrong formats: error events, the connection stays usable', async () => {
    const c = await WyomingTestClient.connect(port);
    const expect = async (code: string) => {
      const from = c.events.length;
      const e = await c.waitFor((ev) => ev.type === 'error', 10_000, from);
      assert.equal(e.data.code, code, JSON.stringify(e.data));
    };
    c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, Buffer.alloc(320));
    await expect('audio_without_start');
    c.send('audio-stop');
    await expect('audio_without_start');
    c.send('audio-start', { rate: 16000, width: 5, channels: 1 });
    await expect('invalid_audio');
    c.send('audio-start', { rate: 16000, width: 2, channels: 0 });
    await expect('invalid_audio');
    c.send('audio-start', { rate: 10, width: 2, channels: 1 });
    await expect('invalid_audio');
    c.send('audio-start', { rate: 16000, width: 2, channels: 1 });
    c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, Buffer.alloc(321));
    await expect('invalid_audio');
    // The rest of a broken utterance is dropped without more errors, up to its audio-stop.
    c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, Buffer.alloc(320));
    c.send('audio-stop');
    c.send('audio-start', { rate: '16000', width: 2, channels: 1 });
    await expect('invalid_audio');
    assert.equal(c.events.filter((e) => e.type === 'error').length, 7);
    c.send('synthesize-chunk', { text: 'hi' });
    await expect('synthesize_without_start');
    c.send('synthesize', {});
    await expect('MISSING_TEXT');
    // An utterance with no audio at all: answered, not crashed on.
    c.send('audio-start', { rate: 16000, width: 2, channels: 1 });
    c.send('audio-stop');
    const answer = await c.waitFor((e) => e.type === 'transcript' || e.type === 'error', 30_000, c.events.length);
    if (answer.type === 'transcript') assert.equal(answer.data.text, '');
    c.send('describe');
    await c.waitFor((e) => e.type === 'info', 10_000);
    c.close();
    const metrics = await t.services.metrics.registry.metrics();
    assert.match(metrics, /parla_wyoming_events_total\{type="audio-chunk",outcome="error"\} [1-9]/);
    assert.match(metrics, /parla_wyoming_events_total\{type="describe",outcome="ok"\} [1-9]/);
    assert.match(metrics, /parla_wyoming_events_total\{type="other",outcome="error"\} [1-9]/);
  });
});

describe('Wyoming streamed transcripts (decision #48)', () => {
  const fmt = { rate: 16000, width: 2, channels: 1 };
  let speech: Buffer;
  before(() => {
    const pcm = float32ToInt16(
      decodeWav(readFileSync(flite('The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore.'))).channels[0]!,
    );
    speech = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  });
  const chunked = (c: WyomingTestClient, b: Buffer) => {
    for (let at = 0; at < b.length; at += 3200) c.send('audio-chunk', fmt, b.subarray(at, at + 3200));
  };

  test("the server's own events sent by the client are unknown events; the connection stays usable", async () => {
    const c = await WyomingTestClient.connect(port);
    for (const type of ['transcript-start', 'transcript-chunk', 'transcript-stop', 'transcript']) {
      const from = c.events.length;
      c.send(type, { text: 'x'.repeat(100_000), language: { nested: [1] } });
      const e = await c.waitFor((ev) => ev.type === 'error', 10_000, from);
      assert.equal(e.data.code, 'unknown_event');
      assert.ok(e.data.text.length < 200);
    }
    // In the middle of an utterance too: its stream goes on and ends as usual.
    c.send('transcribe', {});
    c.send('audio-start', fmt);
    chunked(c, speech.subarray(0, 32000));
    c.send('transcript-chunk', { text: 'injected' });
    chunked(c, speech.subarray(32000));
    c.send('audio-stop');
    const tr = await c.waitFor((e) => e.type === 'transcript', 30_000);
    await c.waitFor((e) => e.type === 'transcript-stop', 30_000, c.events.indexOf(tr));
    assert.doesNotMatch(tr.data.text, /injected/);
    assert.match(tr.data.text, /fox/i);
    const chunks = c.events
      .filter((e) => e.type === 'transcript-chunk')
      .map((e) => e.data.text)
      .join('');
    assert.equal(chunks, tr.data.text);
    c.close();
  });

  test('out of order: audio-start twice, transcribe mid-utterance, audio-stop twice; each stream opened is closed once, the last is answered', async () => {
    const c = await WyomingTestClient.connect(port);
    c.send('transcribe', {});
    c.send('audio-start', fmt);
    chunked(c, speech.subarray(0, 16000));
    // A second audio-start drops the first utterance and closes its stream.
    c.send('audio-start', fmt);
    chunked(c, speech.subarray(0, 16000));
    // transcribe mid-utterance: the same.
    c.send('transcribe', {});
    c.send('audio-start', fmt);
    chunked(c, speech);
    c.send('audio-stop');
    c.send('audio-stop');
    const err = await c.waitFor((e) => e.type === 'error', 30_000);
    assert.equal(err.data.code, 'audio_without_start');
    const types = c.events.map((e) => e.type).filter((x) => x !== 'transcript-chunk');
    assert.deepEqual(types, [
      'transcript-start',
      'transcript-stop',
      'transcript-start',
      'transcript-stop',
      'transcript-start',
      'transcript',
      'transcript-stop',
      'error',
    ]);
    assert.match(c.events.find((e) => e.type === 'transcript')!.data.text, /fox/i);
    c.close();
  });

  test('bad audio after words went out: one error, the rest dropped, the stream closed at audio-stop, the audio received billed', async () => {
    const { apiKey, accountId } = await createTestAccount(t.services, { credits: 1000 });
    const own = new WyomingServer(t.services, { apiKey });
    const p = await own.listen(0, '127.0.0.1');
    try {
      const c = await WyomingTestClient.connect(p);
      c.send('transcribe', {});
      c.send('audio-start', fmt);
      chunked(c, speech);
      await c.waitFor((e) => e.type === 'transcript-chunk', 30_000);
      // An odd-length chunk, then garbage in a huge (but framed) chunk, then more speech.
      c.send('audio-chunk', fmt, Buffer.alloc(3201, 7));
      c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, randomBytes(900_001));
      chunked(c, speech);
      c.send('audio-stop');
      await c.waitFor((e) => e.type === 'transcript-stop', 30_000);
      const after = c.events.slice(c.events.findIndex((e) => e.type === 'error'));
      assert.deepEqual(
        after.map((e) => [e.type, e.data.code]),
        [
          ['error', 'invalid_audio'],
          ['transcript-stop', undefined],
        ],
      );
      assert.equal(
        c.events.some((e) => e.type === 'transcript'),
        false,
      );
      c.close();
      // Billed: words went out before the fault (at the batch price of the audio received, once the hold is settled).
      const rate = t.services.registry.sttRate('cipher-fast');
      const most = Math.ceil((speech.length * 2) / 32000) * rate;
      let spent = 0;
      for (let i = 0; i < 100; i++) {
        spent = 1000 - (await t.services.store.getBalance(accountId, 'live'));
        if (spent > 0 && spent <= most) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(spent >= rate && spent <= most, String(spent));
    } finally {
      await own.close();
    }
  });

  test('a client that leaves mid-utterance: its slot, hold and recognizer come back (a one-stream plan transcribes again), silence unbilled', async () => {
    const { apiKey, accountId } = await createTestAccount(t.services, { plan: 'free', credits: 1000 });
    const own = new WyomingServer(t.services, { apiKey });
    const p = await own.listen(0, '127.0.0.1');
    /** transcribe + audio-start until the stream opens (the slot of a connection just closed is released as its session ends). */
    const open = async (c: WyomingTestClient) => {
      for (let i = 0; ; i++) {
        const from = c.events.length;
        c.send('transcribe', {});
        c.send('audio-start', fmt);
        const first = await c.waitFor((e) => e.type === 'transcript-start' || e.type === 'error', 10_000, from);
        if (first.type === 'transcript-start') return;
        assert.ok(first.data.code === 'CONCURRENT_LIMIT' && i < 3, JSON.stringify(first.data));
        c.send('audio-stop');
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const balance = () => t.services.store.getBalance(accountId, 'live');
    try {
      for (let i = 0; i < 3; i++) {
        const c = await WyomingTestClient.connect(p);
        await open(c);
        chunked(c, Buffer.alloc(32000));
        c.close();
        // The hold is given back whole: nothing went out, nothing is billed.
        for (let k = 0; k < 100 && (await balance()) !== 1000; k++) await new Promise((r) => setTimeout(r, 50));
        assert.equal(await balance(), 1000);
      }
      const c = await WyomingTestClient.connect(p);
      await open(c);
      chunked(c, speech);
      c.send('audio-stop');
      const tr = await c.waitFor((e) => e.type === 'transcript', 30_000);
      assert.match(tr.data.text, /fox/i);
      await c.waitFor((e) => e.type === 'transcript-stop', 10_000);
      c.close();
      // Only the utterance that was answered is billed, at the batch price of its audio.
      assert.equal(1000 - (await balance()), t.services.registry.sttCredits('cipher-fast', speech.length / 32000));
    } finally {
      await own.close();
    }
  });
});

describe('Wyoming synthesize text is plain text (issue 28, item 1)', () => {
  test('angle brackets, tags and prototype names are spoken or refused as names, never an error for the text', async () => {
    const c = await WyomingTestClient.connect(port);
    for (const text of [
      'Compare a<b and c>d.',
      'Use the <div> element here.',
      '<think>x</think> <speak>Hi.</speak>',
      '<whisper>open',
      '<break time="1s"/> ok',
      '<<>>',
    ]) {
      const from = c.events.length;
      c.send('synthesize', { text });
      const end = await c.waitFor((e) => e.type === 'audio-stop' || e.type === 'error', 30_000, from);
      assert.equal(end.type, 'audio-stop', `${text}: ${JSON.stringify(end.data)}`);
      const bytes = c.events
        .slice(from)
        .filter((e) => e.type === 'audio-chunk')
        .reduce((n, e) => n + (e.payload?.length ?? 0), 0);
      assert.ok(bytes > 22050 * 2 * 0.2, `${text}: ${bytes} bytes`);
    }
    // Streaming too: a tag split over chunks is still plain text.
    const from = c.events.length;
    c.send('synthesize-start', {});
    c.send('synthesize-chunk', { text: 'One <di' });
    c.send('synthesize-chunk', { text: 'v> two. Then a<b. ' });
    c.send('synthesize-stop', {});
    const stopped = await c.waitFor((e) => e.type === 'synthesize-stopped' || e.type === 'error', 30_000, from);
    assert.equal(stopped.type, 'synthesize-stopped', JSON.stringify(stopped.data));
    for (const name of ['constructor', '__proto__', 'toString']) {
      const at = c.events.length;
      c.send('synthesize', { text: 'Hi.', voice: { name } });
      const e = await c.waitFor((ev) => ev.type === 'audio-stop' || ev.type === 'error', 30_000, at);
      if (e.type === 'error') assert.doesNotMatch(String(e.data.text), /native code|function /, name);
    }
    c.close();
    await stillServing();
  });
});

describe('Wyoming resource bounds', () => {
  test('an utterance over the longest allowed: FILE_TOO_LARGE once, the rest dropped, its stream closed, nothing billed', async () => {
    const { apiKey, accountId } = await createTestAccount(t.services, { credits: 1000 });
    const small = new WyomingServer(t.services, { apiKey, maxTranscribeSeconds: 2 });
    const p = await small.listen(0, '127.0.0.1');
    try {
      const c = await WyomingTestClient.connect(p);
      c.send('transcribe', {});
      c.send('audio-start', { rate: 16000, width: 2, channels: 1 });
      // 5 s of audio in 100 ms chunks: over the 2 s limit.
      for (let i = 0; i < 50; i++) c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, Buffer.alloc(3200));
      c.send('audio-stop');
      c.send('describe');
      await c.waitFor((e) => e.type === 'info', 10_000);
      // Silence: no word went out, so the refused utterance costs nothing (decision #48).
      assert.deepEqual(
        c.events.map((e) => [e.type, e.data.code]),
        [
          ['transcript-start', undefined],
          ['error', 'FILE_TOO_LARGE'],
          ['transcript-stop', undefined],
          ['info', undefined],
        ],
      );
      // The hold taken at audio-start is given back whole.
      for (let i = 0; i < 100 && (await t.services.store.getBalance(accountId, 'live')) !== 1000; i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal(await t.services.store.getBalance(accountId, 'live'), 1000);
      c.close();
    } finally {
      await small.close();
    }
  });

  test('synthesize with text over 50,000 characters (the native limit): TEXT_TOO_LONG, nothing spoken or billed, the connection stays usable', async () => {
    const { apiKey, accountId } = await createTestAccount(t.services, { credits: 100_000 });
    const own = new WyomingServer(t.services, { apiKey });
    const p = await own.listen(0, '127.0.0.1');
    try {
      const c = await WyomingTestClient.connect(p);
      // About 0.9 MB in one event, under the frame limit: refused by the text limit, not the framing.
      c.send('synthesize', { text: 'word '.repeat(180_000) });
      const err = await c.waitFor((e) => e.type === 'error', 10_000);
      assert.equal(err.data.code, 'TEXT_TOO_LONG');
      assert.match(err.data.text, /50000/);
      // Counted in characters as the native API does: 50,001 emoji (100,002 UTF-16 units) are over it.
      c.send('synthesize', { text: '\u{1F600}'.repeat(50_001) });
      const err2 = await c.waitFor((e) => e.type === 'error', 10_000, c.events.indexOf(err) + 1);
      assert.equal(err2.data.code, 'TEXT_TOO_LONG');
      assert.ok(!c.events.some((e) => e.type === 'audio-start'), 'nothing spoken');
      assert.equal(await t.services.store.getBalance(accountId, 'live'), 100_000, 'nothing billed');
      // The connection stays usable.
      c.send('describe');
      await c.waitFor((e) => e.type === 'info', 10_000);
      c.close();
    } finally {
      await own.close();
    }
  });

  test('connections over the limit are closed as they are accepted; the ones within it are served', async () => {
    const { apiKey } = await createTestAccount(t.services, { credits: 1000 });
    const small = new WyomingServer(t.services, { apiKey, maxConnections: 3 });
    const p = await small.listen(0, '127.0.0.1');
    try {
      const held = await Promise.all([0, 1, 2].map(() => WyomingTestClient.connect(p)));
      await new Promise((r) => setTimeout(r, 100));
      const extra = await WyomingTestClient.connect(p);
      await extra.closedPromise;
      for (const c of held) {
        c.send('describe');
        await c.waitFor((e) => e.type === 'info', 10_000);
        c.close();
      }
    } finally {
      await small.close();
    }
  });
});

describe('EventReader', () => {
  test('an event split at every byte boundary reads the same', () => {
    const bytes = Buffer.concat([
      encodeEvent('audio-chunk', { rate: 16000, width: 2, channels: 1 }, Buffer.from([1, 2, 3, 4])),
      encodeEvent('describe'),
    ]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const r = new EventReader();
      const evs = [...r.push(bytes.subarray(0, cut)), ...r.push(bytes.subarray(cut))];
      assert.deepEqual(
        evs.map((e) => [e.type, e.data, e.payload && [...e.payload]]),
        [
          ['audio-chunk', { rate: 16000, width: 2, channels: 1 }, [1, 2, 3, 4]],
          ['describe', {}, null],
        ],
      );
    }
  });

  test('data in the header and in the data block are merged, the block winning', () => {
    const r = new EventReader();
    const block = Buffer.from(JSON.stringify({ text: 'block', extra: 1 }));
    const evs = r.push(
      Buffer.concat([
        Buffer.from(
          JSON.stringify({ type: 'synthesize', data: { text: 'header', voice: { name: 'v' } }, data_length: block.length }) + '\n',
        ),
        block,
      ]),
    );
    assert.deepEqual(evs[0]!.data, { text: 'block', voice: { name: 'v' }, extra: 1 });
  });

  test('a long header fed in small pieces is read once (no re-scan of what was searched)', () => {
    const r = new EventReader();
    const line = Buffer.from(JSON.stringify({ type: 'synthesize', data: { text: 'a'.repeat(900_000) } }) + '\n');
    const evs = [];
    for (let at = 0; at < line.length; at += 1000) evs.push(...r.push(line.subarray(at, at + 1000)));
    assert.equal(evs.length, 1);
    assert.equal((evs[0]!.data.text as string).length, 900_000);
  });

  test('after a broken frame the reader refuses everything', () => {
    const r = new EventReader();
    assert.deepEqual(
      r.push(Buffer.concat([encodeEvent('describe'), Buffer.from('nope\n')])).map((e) => e.type),
      ['describe'],
    );
    assert.ok(r.failure instanceof FrameError);
    assert.equal(r.failure.code, 'invalid_json');
    assert.throws(() => r.push(encodeEvent('describe')), FrameError);
  });
});
