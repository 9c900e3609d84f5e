// Hostile input on the Wyoming port: broken headers, lengths over the limits, binary garbage,
// slow-drip partial lines, floods of tiny events and audio out of order. Each gets an `error`
// event (with text and code); framing errors close the connection; the node keeps answering.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { WyomingServer } from '../../src/wyoming/server.js';
import { EventReader, FrameError, encodeEvent } from '../../src/wyoming/framing.js';
import { WyomingTestClient } from '../helpers/wyoming-client.js';

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
    assert.deepEqual(c.events.map((e) => e.type), ['info', 'error']);
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
    assert.equal(c.events.some((e) => e.type === 'error'), false);
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

describe('Wyoming resource bounds', () => {
  test('an utterance over the longest allowed: FILE_TOO_LARGE once, the rest dropped, nothing billed', async () => {
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
      assert.deepEqual(c.events.map((e) => [e.type, e.data.code]), [['error', 'FILE_TOO_LARGE'], ['info', undefined]]);
      assert.equal(await t.services.store.getBalance(accountId, 'live'), 1000);
      c.close();
    } finally {
      await small.close();
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
    const bytes = Buffer.concat([encodeEvent('audio-chunk', { rate: 16000, width: 2, channels: 1 }, Buffer.from([1, 2, 3, 4])), encodeEvent('describe')]);
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
    const evs = r.push(Buffer.concat([Buffer.from(JSON.stringify({ type: 'synthesize', data: { text: 'header', voice: { name: 'v' } }, data_length: block.length }) + '\n'), block]));
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
    assert.deepEqual(r.push(Buffer.concat([encodeEvent('describe'), Buffer.from('nope\n')])).map((e) => e.type), ['describe']);
    assert.ok(r.failure instanceof FrameError);
    assert.equal(r.failure.code, 'invalid_json');
    assert.throws(() => r.push(encodeEvent('describe')), FrameError);
  });
});
