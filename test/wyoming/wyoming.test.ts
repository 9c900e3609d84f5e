// The Wyoming server against a test client written from the protocol's documentation: describe,
// transcription (batch and the streaming transcript events) on real speech in several audio
// formats, synthesis (whole and streamed) giving real audio, credits as the native endpoints
// charge for the same work, and the refusals (no credits, revoked key) as error events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { flite, wordErrorRate } from '../helpers/speech.js';
import { multipart } from '../helpers/multipart.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { resampleInt16 } from '../../src/audio/resample.js';
import { WyomingServer } from '../../src/wyoming/server.js';
import { sendAudio, WyomingTestClient, type ClientEvent } from '../helpers/wyoming-client.js';
import { loadConfig, ConfigError } from '../../src/config.js';

let t: TestApp;
let server: WyomingServer;
let port: number;
let key: string;
let accountId: string;
let foxWav: Buffer;
let fox16k: Int16Array;
const servers: WyomingServer[] = [];

async function serve(apiKey: string): Promise<number> {
  const s = new WyomingServer(t.services, { apiKey });
  servers.push(s);
  return s.listen(0, '127.0.0.1');
}

before(async () => {
  t = await createTestApp();
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 1_000_000 }));
  server = new WyomingServer(t.services, { apiKey: key });
  port = await server.listen(0, '127.0.0.1');
  foxWav = readFileSync(flite('The quick brown fox jumps over the lazy dog.'));
  fox16k = float32ToInt16(decodeWav(foxWav).channels[0]!);
  await t.services.registry.whenReady();
});
after(async () => {
  await server.close();
  for (const s of servers) await s.close();
  await t.close();
});

const balance = () => t.services.store.getBalance(accountId, 'live');
const pcmBytes = (x: Int16Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

/** Interleaves mono 16-bit into `channels` channels of `width` bytes. */
function widen(x: Int16Array, width: number, channels: number): Buffer {
  const out = Buffer.alloc(x.length * width * channels);
  for (let i = 0; i < x.length; i++) {
    for (let c = 0; c < channels; c++) {
      const o = (i * channels + c) * width;
      if (width === 2) out.writeInt16LE(x[i]!, o);
      else if (width === 4) out.writeInt32LE(x[i]! * 65536, o);
      else if (width === 3) out.writeIntLE(x[i]! * 256, o, 3);
      else out.writeInt8(x[i]! >> 8, o);
    }
  }
  return out;
}

function audioOf(events: ClientEvent[]): { start: ClientEvent; pcm: Int16Array } {
  const start = events.find((e) => e.type === 'audio-start')!;
  const chunks = events.filter((e) => e.type === 'audio-chunk');
  for (const c of chunks)
    assert.deepEqual([c.data.rate, c.data.width, c.data.channels], [start.data.rate, start.data.width, start.data.channels]);
  const all = Buffer.concat(chunks.map((c) => c.payload!));
  return { start, pcm: new Int16Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.length)) };
}

function rms(x: Int16Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return Math.sqrt(s / Math.max(1, x.length));
}

test('describe -> info: ASR models with languages, TTS voices per model, streaming supported', async () => {
  const c = await WyomingTestClient.connect(port);
  c.send('describe');
  const info = await c.waitFor((e) => e.type === 'info');
  c.close();
  const asr = info.data.asr[0];
  assert.equal(asr.supports_transcript_streaming, true);
  const cipher = asr.models.find((m: any) => m.name === 'cipher-fast');
  assert.ok(cipher && cipher.installed && cipher.languages.includes('en'), JSON.stringify(asr.models));
  const tts = info.data.tts[0];
  assert.equal(tts.supports_synthesize_streaming, true);
  const names = tts.voices.map((v: any) => v.name);
  assert.ok(names.some((n: string) => n.startsWith('aura-prime:')));
  assert.ok(names.some((n: string) => n.startsWith('rapid-flash:')));
  const prime = tts.voices.find((v: any) => v.name.startsWith('aura-prime:'));
  assert.ok(prime.languages.includes('en-US'));
});

describe('transcribe', () => {
  test('16 kHz mono: the streaming transcript events, then the transcript with the spoken words; credits as the native endpoint', async () => {
    const before = await balance();
    const c = await WyomingTestClient.connect(port);
    c.send('transcribe', { language: 'en' });
    sendAudio(c, pcmBytes(fox16k), { rate: 16000, width: 2, channels: 1 });
    const transcript = await c.waitFor((e) => e.type === 'transcript');
    await c.waitFor((e) => e.type === 'transcript-stop', 30_000, c.events.indexOf(transcript));
    c.close();
    const types = c.events.map((e) => e.type);
    // The protocol's order: the transcript for clients that know no streaming, then the stream's end.
    assert.deepEqual(
      types.filter((x) => x !== 'transcript-chunk'),
      ['transcript-start', 'transcript', 'transcript-stop'],
    );
    const chunks = c.events.filter((e) => e.type === 'transcript-chunk').map((e) => e.data.text);
    assert.ok(chunks.length >= 1);
    assert.equal(chunks.join(''), transcript.data.text);
    assert.ok(wordErrorRate('the quick brown fox jumps over the lazy dog', transcript.data.text) <= 0.2, transcript.data.text);
    assert.equal(transcript.data.language, 'en');
    const charged = before - (await balance());

    const { body, contentType } = await multipart(foxWav, {});
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/transcribe',
      headers: { 'x-api-key': key, 'content-type': contentType },
      payload: body,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(charged, res.json().credits_used);
    assert.ok(charged > 0);
  });

  test('transcript-chunk events while the user is still speaking: the text grows chunk by chunk, the transcript is the chunks joined', async () => {
    const sentences = [
      'The quick brown fox jumps over the lazy dog.',
      'She sells sea shells by the sea shore.',
      'Please call Stella and ask her to bring these things.',
    ];
    const clips = sentences.map((x) => float32ToInt16(decodeWav(readFileSync(flite(x))).channels[0]!));
    const gap = new Int16Array(16000);
    const fmt = { rate: 16000, width: 2, channels: 1 };
    const c = await WyomingTestClient.connect(port);
    c.send('transcribe', { language: 'en_US' });
    c.send('audio-start', fmt);
    const sendPcm = (x: Int16Array) => {
      const b = pcmBytes(x);
      for (let at = 0; at < b.length; at += 3200) c.send('audio-chunk', fmt, b.subarray(at, at + 3200));
    };
    // The first two sentences, then a wait: words come back before the audio stops.
    sendPcm(clips[0]!);
    sendPcm(gap);
    sendPcm(clips[1]!);
    const first = await c.waitFor((e) => e.type === 'transcript-chunk');
    assert.equal(
      c.events.some((e) => e.type === 'transcript'),
      false,
    );
    sendPcm(gap);
    sendPcm(clips[2]!);
    c.send('audio-stop');
    const transcript = await c.waitFor((e) => e.type === 'transcript');
    await c.waitFor((e) => e.type === 'transcript-stop', 30_000, c.events.indexOf(transcript));
    c.close();
    assert.equal(c.events[0]!.type, 'transcript-start');
    assert.equal(c.events[0]!.data.language, 'en-US');
    const chunks = c.events.filter((e) => e.type === 'transcript-chunk').map((e) => e.data.text as string);
    assert.ok(first.data.text.length > 0 && chunks.length >= 3, JSON.stringify(chunks));
    // Each chunk adds to the text (words after a space), none repeats or rewrites what came before.
    chunks.forEach((x, i) => assert.match(x, i === 0 ? /^\S/ : /^ \S/, JSON.stringify(chunks)));
    assert.equal(chunks.join(''), transcript.data.text);
    assert.ok(wordErrorRate(sentences.join(' '), transcript.data.text) <= 0.25, transcript.data.text);
    assert.deepEqual(
      c.events.slice(-2).map((e) => e.type),
      ['transcript', 'transcript-stop'],
    );
  });

  test('44.1 kHz stereo 32-bit, 48 kHz 24-bit and 22.05 kHz 8-bit audio are converted and recognized', async () => {
    for (const [rate, width, channels] of [
      [44100, 4, 2],
      [48000, 3, 1],
      [22050, 1, 1],
    ] as const) {
      const pcm = widen(resampleInt16(fox16k, 16000, rate), width, channels);
      const c = await WyomingTestClient.connect(port);
      c.send('transcribe', {});
      sendAudio(c, pcm, { rate, width, channels }, 777);
      const transcript = await c.waitFor((e) => e.type === 'transcript' || e.type === 'error');
      c.close();
      assert.equal(transcript.type, 'transcript', JSON.stringify(transcript.data));
      // 8-bit samples carry about 48 dB of dynamic range: the recognizer hears less of it.
      if (width === 1) assert.match(transcript.data.text, /brown fox/i, `${rate}/${width}/${channels}: ${transcript.data.text}`);
      else
        assert.ok(
          wordErrorRate('the quick brown fox jumps over the lazy dog', transcript.data.text) <= 0.35,
          `${rate}/${width}/${channels}: ${transcript.data.text}`,
        );
    }
  });

  test('two utterances on one connection', async () => {
    const c = await WyomingTestClient.connect(port);
    for (let i = 0; i < 2; i++) {
      const from = c.events.length;
      c.send('transcribe', {});
      sendAudio(c, pcmBytes(fox16k), { rate: 16000, width: 2, channels: 1 });
      const tr = await c.waitFor((e) => e.type === 'transcript', 30_000, from);
      assert.match(tr.data.text, /fox/i);
    }
    c.close();
  });
});

describe('synthesize', () => {
  const text = 'Good morning. The weather today is sunny with a light breeze.';

  test('synthesize -> audio-start, real audio of sensible length, audio-stop; credits as /tts/stream', async () => {
    const before = await balance();
    const c = await WyomingTestClient.connect(port);
    c.send('synthesize', { text, voice: { name: 'aura-prime:aria', language: 'en_US' } });
    await c.waitFor((e) => e.type === 'audio-stop' || e.type === 'error');
    c.close();
    assert.equal(
      c.events.find((e) => e.type === 'error'),
      undefined,
      JSON.stringify(c.events.find((e) => e.type === 'error')?.data),
    );
    const { start, pcm } = audioOf(c.events);
    assert.deepEqual(start.data, { rate: 22050, width: 2, channels: 1 });
    const seconds = pcm.length / 22050;
    assert.ok(seconds > 2 && seconds < 10, `${seconds} s`);
    assert.ok(rms(pcm) > 300, `rms ${rms(pcm)}`);
    const charged = before - (await balance());

    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tts/stream',
      headers: { 'x-api-key': key },
      payload: { text, voice: 'Aria', model: 'aura-prime', sample_rate: 22050 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const after = await balance();
    assert.equal(charged, before - charged - after);
    assert.equal(charged, text.length);
  });

  test('the synthesized speech is recognized back', async () => {
    const c = await WyomingTestClient.connect(port);
    c.send('synthesize', { text: 'The quick brown fox jumps over the lazy dog.', voice: { name: 'aura-prime:aria' } });
    await c.waitFor((e) => e.type === 'audio-stop');
    const { pcm } = audioOf(c.events);
    const from = c.events.length;
    c.send('transcribe', {});
    sendAudio(c, pcmBytes(pcm), { rate: 22050, width: 2, channels: 1 });
    const tr = await c.waitFor((e) => e.type === 'transcript', 30_000, from);
    c.close();
    assert.ok(wordErrorRate('the quick brown fox jumps over the lazy dog', tr.data.text) <= 0.5, tr.data.text);
  });

  test('synthesize-start / -chunk / -stop: audio while text arrives, one audio-start/stop, synthesize-stopped; the compatibility synthesize is ignored', async () => {
    const before = await balance();
    const c = await WyomingTestClient.connect(port);
    c.send('synthesize-start', { voice: { name: 'rapid-flash:Amelia' } });
    const pieces = ['Good mor', 'ning. The weather ', 'today is sunny ', 'with a light breeze.'];
    c.send('synthesize-chunk', { text: pieces[0] });
    c.send('synthesize-chunk', { text: pieces[1] });
    // The first sentence is complete: its audio comes before the stream ends.
    await c.waitFor((e) => e.type === 'audio-chunk');
    assert.equal(
      c.events.some((e) => e.type === 'synthesize-stopped'),
      false,
    );
    c.send('synthesize-chunk', { text: pieces[2] });
    c.send('synthesize-chunk', { text: pieces[3] });
    c.send('synthesize', { text: pieces.join(''), voice: { name: 'rapid-flash:Amelia' } });
    c.send('synthesize-stop');
    await c.waitFor((e) => e.type === 'synthesize-stopped' || e.type === 'error');
    c.close();
    const types = c.events.map((e) => e.type);
    assert.equal(types.filter((x) => x === 'audio-start').length, 1, types.join());
    assert.equal(types.filter((x) => x === 'audio-stop').length, 1);
    assert.deepEqual(types.slice(-2), ['audio-stop', 'synthesize-stopped']);
    const { pcm } = audioOf(c.events);
    const seconds = pcm.length / 22050;
    assert.ok(seconds > 2 && seconds < 10, `${seconds} s`);
    assert.ok(rms(pcm) > 300);
    // Billed once, per character, as the native stream bills the same text.
    assert.equal(before - (await balance()), pieces.join('').length);
  });
});

describe('refusals as error events', () => {
  test('no credits: INSUFFICIENT_CREDITS for synthesize and transcribe, the connection stays usable', async () => {
    const poor = await createTestAccount(t.services, { credits: 0 });
    const p = await serve(poor.apiKey);
    const c = await WyomingTestClient.connect(p);
    c.send('synthesize', { text: 'Hello there.' });
    const e1 = await c.waitFor((e) => e.type === 'error');
    assert.equal(e1.data.code, 'INSUFFICIENT_CREDITS');
    assert.equal(typeof e1.data.text, 'string');
    c.send('transcribe', {});
    sendAudio(c, pcmBytes(fox16k), { rate: 16000, width: 2, channels: 1 });
    const e2 = await c.waitFor((e) => e.type === 'error', 30_000, c.events.indexOf(e1) + 1);
    assert.equal(e2.data.code, 'INSUFFICIENT_CREDITS');
    // A refused stream: one error, its chunks dropped, its stop answered with synthesize-stopped.
    const from = c.events.length;
    c.send('synthesize-start', {});
    for (let i = 0; i < 40; i++) c.send('synthesize-chunk', { text: `Sentence ${i}. ` });
    c.send('synthesize', { text: 'Sentence.' });
    c.send('synthesize-stop');
    await c.waitFor((e) => e.type === 'synthesize-stopped', 30_000, from);
    assert.deepEqual(
      c.events.slice(from).map((e) => [e.type, e.data.code]),
      [
        ['error', 'INSUFFICIENT_CREDITS'],
        ['synthesize-stopped', undefined],
      ],
    );
    c.send('describe');
    await c.waitFor((e) => e.type === 'info');
    assert.equal(
      c.events.some((e) => e.type === 'audio-start' || e.type === 'transcript'),
      false,
    );
    c.close();
  });

  test('a key revoked while connected: the next request gets AUTH_REVOKED_API_KEY', async () => {
    const acct = await createTestAccount(t.services, { credits: 10_000 });
    const p = await serve(acct.apiKey);
    const c = await WyomingTestClient.connect(p);
    c.send('synthesize', { text: 'Hello.' });
    await c.waitFor((e) => e.type === 'audio-stop');
    assert.equal(await t.services.store.setKeyState(acct.keyId, 'revoked'), true);
    t.services.authenticator.invalidate();
    const from = c.events.length;
    c.send('synthesize', { text: 'Hello again.' });
    const err = await c.waitFor((e) => e.type === 'error', 30_000, from);
    assert.equal(err.data.code, 'AUTH_REVOKED_API_KEY');
    // A refused transcription is one error, its audio dropped without more.
    c.send('transcribe', {});
    sendAudio(c, pcmBytes(fox16k.subarray(0, 16000)), { rate: 16000, width: 2, channels: 1 });
    const err2 = await c.waitFor((e) => e.type === 'error', 30_000, c.events.indexOf(err) + 1);
    assert.equal(err2.data.code, 'AUTH_REVOKED_API_KEY');
    c.send('describe');
    await c.waitFor((e) => e.type === 'info');
    assert.deepEqual(
      c.events.slice(c.events.indexOf(err) + 1).map((e) => e.type),
      ['error', 'info'],
    );
    c.close();
  });

  test('feature switches: tts_stream off refuses synthesize, stt off refuses transcribe (FEATURE_DISABLED)', async () => {
    const acct = await createTestAccount(t.services, { credits: 10_000 });
    const p = await serve(acct.apiKey);
    await t.services.store.setFeature(acct.accountId, 'tts_stream', false);
    await t.services.store.setFeature(acct.accountId, 'stt', false);
    t.services.authenticator.invalidate();
    const c = await WyomingTestClient.connect(p);
    c.send('synthesize', { text: 'Hello.' });
    const e1 = await c.waitFor((e) => e.type === 'error');
    assert.equal(e1.data.code, 'FEATURE_DISABLED');
    c.send('transcribe', {});
    const e2 = await c.waitFor((e) => e.type === 'error', 30_000, c.events.indexOf(e1) + 1);
    assert.equal(e2.data.code, 'FEATURE_DISABLED');
    c.close();
  });

  test("the plan's rate window: the request over it gets RATE_LIMIT_EXCEEDED", async () => {
    const acct = await createTestAccount(t.services, { plan: 'free', credits: 10_000 });
    const p = await serve(acct.apiKey);
    const c = await WyomingTestClient.connect(p);
    const limit = t.services.config.product.plans.free.requestsPerMinute;
    for (let i = 0; i < limit; i++) {
      const from = c.events.length;
      c.send('synthesize', { text: 'Hi.' });
      const end = await c.waitFor((e) => e.type === 'audio-stop' || e.type === 'error', 30_000, from);
      assert.equal(end.type, 'audio-stop', JSON.stringify(end.data));
    }
    const from = c.events.length;
    c.send('synthesize', { text: 'Hi.' });
    const err = await c.waitFor((e) => e.type === 'error', 30_000, from);
    assert.equal(err.data.code, 'RATE_LIMIT_EXCEEDED');
    c.close();
  });

  test("the plan's concurrency: a second request while a streamed synthesis holds the slot gets CONCURRENT_LIMIT", async () => {
    const acct = await createTestAccount(t.services, { plan: 'free', credits: 10_000 });
    const p = await serve(acct.apiKey);
    const a = await WyomingTestClient.connect(p);
    a.send('synthesize-start', { voice: { name: 'aura-prime:aria' } });
    a.send('synthesize-chunk', { text: 'Hello there. ' });
    await a.waitFor((e) => e.type === 'audio-chunk');
    const b = await WyomingTestClient.connect(p);
    b.send('synthesize', { text: 'Me too.' });
    const err = await b.waitFor((e) => e.type === 'error');
    assert.equal(err.data.code, 'CONCURRENT_LIMIT');
    a.send('synthesize-stop');
    await a.waitFor((e) => e.type === 'synthesize-stopped');
    // The slot is free again once the stream has stopped.
    const from = b.events.length;
    b.send('synthesize', { text: 'Me too.' });
    const end = await b.waitFor((e) => e.type === 'audio-stop' || e.type === 'error', 30_000, from);
    assert.equal(end.type, 'audio-stop', JSON.stringify(end.data));
    a.close();
    b.close();
  });

  test('unknown models are refused with the native error codes', async () => {
    const c = await WyomingTestClient.connect(port);
    c.send('synthesize', { text: 'Hello.', voice: { name: 'nonexistent-model:x' } });
    const e = await c.waitFor((ev) => ev.type === 'error');
    assert.equal(e.data.code, 'INVALID_MODEL');
    c.send('transcribe', { name: 'no-such-model' });
    const e2 = await c.waitFor((ev) => ev.type === 'error', 30_000, c.events.indexOf(e) + 1);
    assert.equal(e2.data.code, 'INVALID_MODEL');
    c.send('transcribe', { language: 'x'.repeat(100_000) });
    const e3 = await c.waitFor((ev) => ev.type === 'error', 30_000, c.events.indexOf(e2) + 1);
    assert.equal(e3.data.code, 'INVALID_PARAMETER');
    assert.ok(e3.data.text.length < 200);
    c.close();
  });
});

test('startServer: WYOMING_PORT starts the Wyoming server beside the API, stop() closes it', async () => {
  const { startServer } = await import('../../src/server.js');
  const { testConfig, tempDir } = await import('../helpers/env.js');
  const tmp = tempDir();
  try {
    // The key must exist in the node's own store: make it with a first opening of that store.
    const { createServices } = await import('../../src/services.js');
    const base = testConfig({ PORT: '0', REALTIME_PORT: '0' }, tmp.dir);
    const seed = await createServices(base, (await import('pino')).pino({ level: 'silent' }) as never);
    const acct = await createTestAccount(seed, { credits: 1000 });
    await seed.close();
    const running = await startServer(
      testConfig({ PORT: '0', REALTIME_PORT: '0', WYOMING_PORT: '0', WYOMING_API_KEY: acct.apiKey }, tmp.dir),
      { announce: () => undefined },
    );
    try {
      assert.ok(running.wyoming && running.wyoming.port > 0);
      const c = await WyomingTestClient.connect(running.wyoming.port);
      c.send('synthesize', { text: 'Hello.' });
      await c.waitFor((e) => e.type === 'audio-stop');
      await running.stop();
      await c.closedPromise;
    } finally {
      await running.stop();
    }
  } finally {
    tmp.cleanup();
  }
});

test('first start: WYOMING_PORT without WYOMING_API_KEY bills the demo account with a kept key; a later start reads it; no demo and no kept key is a config error naming the command', async () => {
  const { startServer } = await import('../../src/server.js');
  const { testConfig, tempDir } = await import('../helpers/env.js');
  const { existsSync, statSync } = await import('node:fs');
  const path = await import('node:path');
  const tmp = tempDir();
  try {
    const env = { PORT: '0', REALTIME_PORT: '0', WYOMING_PORT: '0', PARLA_SEED_DEMO: 'true' };
    const first = await startServer(testConfig(env, tmp.dir), { announce: () => undefined });
    const keyFile = path.join(tmp.dir, 'wyoming-api-key');
    try {
      assert.ok(first.wyoming);
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      const c = await WyomingTestClient.connect(first.wyoming.port);
      c.send('synthesize', { text: 'Hello.' });
      await c.waitFor((e) => e.type === 'audio-stop');
      c.close();
    } finally {
      await first.stop();
    }
    const key = readFileSync(keyFile, 'utf8').trim();
    assert.match(key, /^svc_live_/);
    // The second start seeds nothing (the database has the demo account) and reads the kept key.
    const second = await startServer(testConfig(env, tmp.dir), { announce: () => undefined });
    try {
      assert.equal(readFileSync(keyFile, 'utf8').trim(), key);
      const c = await WyomingTestClient.connect(second.wyoming!.port);
      c.send('synthesize', { text: 'Again.' });
      await c.waitFor((e) => e.type === 'audio-stop');
      c.close();
    } finally {
      await second.stop();
    }
  } finally {
    tmp.cleanup();
  }
  const other = tempDir();
  try {
    assert.equal(existsSync(path.join(other.dir, 'wyoming-api-key')), false);
    await assert.rejects(
      startServer(testConfig({ PORT: '0', REALTIME_PORT: '0', WYOMING_PORT: '0' }, other.dir), { announce: () => undefined }),
      (err: unknown) => err instanceof ConfigError && /parla keys create --account ID --name wyoming/.test(err.message),
    );
  } finally {
    other.cleanup();
  }
});

test('config: WYOMING_PORT takes a well-formed WYOMING_API_KEY or none (the first start makes one); WYOMING_HOST defaults to 127.0.0.1', () => {
  assert.equal(loadConfig({ WYOMING_PORT: '10300', PARLA_DATA_DIR: '/tmp/parla-wy-config' }).wyoming?.apiKey, null);
  assert.throws(() => loadConfig({ WYOMING_PORT: '10300', WYOMING_API_KEY: 'nope', PARLA_DATA_DIR: '/tmp/parla-wy-config' }), ConfigError);
  assert.throws(
    () => loadConfig({ WYOMING_PORT: 'x', WYOMING_API_KEY: 'svc_live_abc', PARLA_DATA_DIR: '/tmp/parla-wy-config' }),
    ConfigError,
  );
  const c = loadConfig({ WYOMING_PORT: '10300', WYOMING_API_KEY: 'svc_live_abc', PARLA_DATA_DIR: '/tmp/parla-wy-config' });
  assert.deepEqual(c.wyoming, { port: 10300, host: '127.0.0.1', apiKey: 'svc_live_abc' });
  assert.equal(loadConfig({ PARLA_DATA_DIR: '/tmp/parla-wy-config' }).wyoming, null);
});
