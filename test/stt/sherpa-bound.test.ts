// Installed sherpa-onnx models serving product models through the operator's bindings
// (operator-settings.json, as `parla models bind` writes it), end to end: /stt/transcribe with
// cipher-max bound to a generated Whisper model and lucid-agent bound to a generated streaming
// Zipformer, and the real-time socket on both (interim and final results). Product
// models without a binding keep PocketSphinx. Generated models say noise: the tests check which
// engine served, the response shapes and the timelines.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/env.js';
import { multipart } from '../helpers/multipart.js';
import { generateSherpaModels, installVerifiedSttModels } from '../helpers/sherpa-models.js';
import { flite, soxConcat } from '../helpers/speech.js';
import { writeOperatorSettings } from '../../src/models/operator-settings.js';
import { RealtimeServer } from '../../src/realtime/server.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

const tmp = tempDir('parla-sherpa-bound-');
const dataDir = path.join(tmp.dir, 'data');
let t: TestApp;
let key: string;
let wav: string;

before(async () => {
  const g = generateSherpaModels(path.join(tmp.dir, 'generated'));
  await installVerifiedSttModels(path.join(dataDir, 'models'), [
    { name: 'whisper-gen', from: g.whisper },
    { name: 'zipformer-gen', from: g.zipformerTransducer, languages: ['en'] },
  ]);
  writeOperatorSettings(dataDir, {
    modelBindings: { 'cipher-max': 'whisper-gen', 'lucid-agent': 'zipformer-gen', 'lucid-mono': 'not-installed' },
  });
  t = await createTestApp({ PARLA_DATA_DIR: dataDir, PARLA_MODEL_TTL: '600', METRICS_TOKEN: 'operator-token-sherpa-bound' });
  ({ apiKey: key } = await createTestAccount(t.services, { credits: 1_000_000 }));
  wav = flite('The quick brown fox jumps over the lazy dog.');
});
after(async () => {
  await t.close();
  tmp.cleanup();
});

/** model -> {engine, loaded} as GET /health and GET /api/v1/stt/realtime/info report them. */
async function reported() {
  const health = await t.app.inject({ method: 'GET', url: '/health' });
  assert.equal(health.statusCode, 200);
  assert.ok(!health.body.includes(dataDir), 'no file paths in the public health record');
  const info = await t.app.inject({ method: 'GET', url: '/api/v1/stt/realtime/info', headers: { 'x-api-key': key } });
  assert.equal(info.statusCode, 200, info.body);
  const pick = (rows: Array<{ engine: string | null; loaded: boolean }>, id: (r: any) => string) =>
    new Map(rows.map((r) => [id(r), { engine: r.engine, loaded: r.loaded }]));
  return { health: pick(health.json().models.stt, (r) => r.model), info: pick(info.json().models, (r) => r.id) };
}

async function post(fields: Record<string, string | string[]>) {
  const { body, contentType } = await multipart(readFileSync(wav), fields, 'audio.wav');
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/stt/transcribe',
    headers: { 'x-api-key': key, 'content-type': contentType },
    payload: body,
  });
}

describe('bound sherpa-onnx models over HTTP', () => {
  test('bindings put the installed model first; an unusable binding leaves the configured chain', () => {
    const models = t.services.registry;
    assert.equal(models.sttBinding('cipher-max')!.engine.id, 'sherpa:whisper-gen');
    assert.equal(models.sttBinding('lucid-agent')!.engine.id, 'sherpa:zipformer-gen');
    assert.equal(models.sttBinding('lucid-mono')!.engine.id, 'pocketsphinx');
    assert.equal(models.sttBinding('cipher-fast')!.engine.id, 'pocketsphinx');
    assert.deepEqual(t.services.lifecycle.resident(), [], 'nothing loads before it is used');
  });

  test('GET /health and /stt/realtime/info report the engine serving each model, not loaded before use', async () => {
    const serving = await reported();
    assert.deepEqual(serving.health.get('cipher-max'), { engine: 'sherpa:whisper-gen', loaded: false });
    assert.deepEqual(serving.health.get('lucid-agent'), { engine: 'sherpa:zipformer-gen', loaded: false });
    assert.equal(serving.health.get('lucid-mono')!.engine, 'pocketsphinx');
    assert.deepEqual(serving.info, serving.health, 'the real-time info says the same');
  });

  test('cipher-max on /stt/transcribe is served by the Whisper model, loaded on first use', async () => {
    const res = await post({ model: 'cipher-max', response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'] });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.model, 'cipher-max');
    assert.equal(body.engine, 'sherpa:whisper-gen', 'verbose_json names the engine that served it');
    assert.ok(body.duration > 1.5, JSON.stringify(body));
    assert.equal(t.services.lifecycle.loadCount('whisper-gen'), 1);
    assert.ok(Array.isArray(body.words) && body.words.length > 0, res.body);
    let last = 0;
    for (const w of body.words) {
      assert.ok(w.start >= last && w.end >= w.start && w.end <= body.duration, JSON.stringify(w));
      last = w.end;
    }
    assert.ok(Array.isArray(body.segments) && body.segments.length > 0);
    for (const fmt of ['json', 'text', 'srt', 'vtt'])
      assert.equal((await post({ model: 'cipher-max', response_format: fmt })).statusCode, 200, fmt);
    assert.equal(t.services.lifecycle.loadCount('whisper-gen'), 1, 'loaded once, shared by the later requests');
  });

  test('json names the engine; with no language the multilingual Whisper detects one it serves, a given one is kept', async () => {
    const served = t.services.registry.sttLanguages('cipher-max').sort();
    assert.deepEqual(served, ['de', 'en']);
    const detected = await post({ model: 'cipher-max', response_format: 'json' });
    assert.equal(detected.statusCode, 200, detected.body);
    assert.equal(detected.json().engine, 'sherpa:whisper-gen');
    assert.ok(served.includes(detected.json().language), detected.body);
    const german = await post({ model: 'cipher-max', response_format: 'json', language: 'de' });
    assert.equal(german.statusCode, 200, german.body);
    assert.equal(german.json().language, 'de');
    assert.equal(german.json().engine, 'sherpa:whisper-gen');
  });

  test('lucid-agent is served by the streaming model (batch); the unbound cipher-fast still by PocketSphinx', async () => {
    const res = await post({ model: 'lucid-agent' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(t.services.lifecycle.loadCount('zipformer-gen'), 1);
    assert.equal(res.json().engine, 'sherpa:zipformer-gen');
    const ps = await post({ model: 'cipher-fast' });
    assert.equal(ps.statusCode, 200, ps.body);
    assert.equal(ps.json().engine, 'pocketsphinx');
    assert.match(ps.json().text.toLowerCase(), /fox/);
  });

  test('keywords are accepted and ignored by a sherpa engine (no hotwords per request: docs/engines.md)', async () => {
    for (const model of ['lucid-agent', 'lucid-mono']) {
      const res = await post({ model, keywords: 'fox:5,quokka' });
      assert.equal(res.statusCode, 200, res.body);
    }
    const agent = await post({ model: 'lucid-agent', keywords: 'fox:5,quokka' });
    assert.equal(agent.json().engine, 'sherpa:zipformer-gen');
  });

  test('after use, /health and the real-time info report the bound models loaded (the idle TTL has not passed)', async () => {
    const serving = await reported();
    assert.deepEqual(serving.health.get('cipher-max'), { engine: 'sherpa:whisper-gen', loaded: true });
    assert.deepEqual(serving.health.get('lucid-agent'), { engine: 'sherpa:zipformer-gen', loaded: true });
    // cipher-fast's PocketSphinx "fast" decoders just served a request.
    assert.deepEqual(serving.health.get('cipher-fast'), { engine: 'pocketsphinx', loaded: true });
    assert.deepEqual(serving.info, serving.health);
  });
});

describe('a long recording on a bound offline model', () => {
  test('cipher-max on Whisper: cut into pieces (one at a time on the model thread) and joined on one timeline', async () => {
    const piecesTotal = async () => {
      const text = (
        await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer operator-token-sherpa-bound' } })
      ).body;
      return Number(
        text
          .split('\n')
          .find((l) => l.startsWith('parla_stt_pieces_total '))
          ?.split(' ')[1] ?? 0,
      );
    };
    const before = await piecesTotal();
    const long = soxConcat(
      Array.from({ length: 18 }, () => wav),
      1.0,
    );
    const { body, contentType } = await multipart(
      readFileSync(long),
      { model: 'cipher-max', response_format: 'verbose_json', timestamp_granularities: 'word,segment' },
      'long.wav',
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/transcribe',
      headers: { 'x-api-key': key, 'content-type': contentType },
      payload: body,
    });
    assert.equal(res.statusCode, 200, res.body);
    const json = res.json();
    assert.equal(json.engine, 'sherpa:whisper-gen');
    assert.ok(json.duration > 60, String(json.duration));
    assert.ok((await piecesTotal()) - before >= 2, 'recognized in pieces');
    assert.ok(json.words.length > 0);
    let last = 0;
    for (const w of json.words) {
      assert.ok(w.start >= last && w.end >= w.start && w.end <= json.duration, JSON.stringify(w));
      last = w.end;
    }
    assert.ok(json.words.at(-1).end > 30, "words from the later pieces are on the recording's timeline");
    assert.deepEqual(
      json.segments.map((s: { id: number }) => s.id),
      json.segments.map((_: unknown, i: number) => i),
    );
  });
});

describe('preload', () => {
  test('models named in PARLA_MODELS_PRELOAD load at start, without holding the start up', async () => {
    const other = await createTestApp({ PARLA_DATA_DIR: dataDir, PARLA_MODELS_PRELOAD: 'zipformer-gen,not-installed' });
    try {
      const lc = other.services.lifecycle;
      const deadline = Date.now() + 20_000;
      while (!lc.resident().some((r) => r.name === 'zipformer-gen' && r.state === 'loaded') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(
        lc.resident().map((r) => [r.name, r.state, r.users]),
        [['zipformer-gen', 'loaded', 0]],
      );
      assert.equal(lc.loadCount('whisper-gen'), 0);
    } finally {
      await other.close();
    }
  });
});

describe('bound models on the real-time socket', () => {
  for (const [model, name, kind] of [
    ['lucid-agent', 'zipformer-gen', 'streaming'],
    ['cipher-max', 'whisper-gen', 'offline'],
  ] as const) {
    test(`${model} (${kind} ${name}): interim results while audio arrives, then final results on the stream timeline`, async () => {
      const rt = new RealtimeServer(t.services, { idleTimeoutMs: 3000, recognizerWaitMs: 5000 });
      const port = await rt.listen(0, '127.0.0.1');
      try {
        const q = new URLSearchParams({ api_key: key, model, interim_results: 'true', endpointing: '300' });
        const ws = new WebSocket(`wss://127.0.0.1:${port}/api/v1/stt/realtime/stream?${q}`, { ca: rt.cert });
        const messages: any[] = [];
        ws.on('message', (d, bin) => {
          if (!bin) messages.push(JSON.parse(d.toString()));
        });
        const closed = new Promise<void>((r) => ws.on('close', () => r()));
        await new Promise<void>((resolve, reject) => {
          ws.once('open', () => resolve());
          ws.once('error', reject);
        });
        const w = decodeWav(readFileSync(wav));
        const pcm = float32ToInt16(w.channels[0]!);
        const padded = new Int16Array(pcm.length + 16000);
        padded.set(pcm);
        for (let i = 0; i < padded.length; i += 1600) {
          const part = padded.subarray(i, i + 1600);
          ws.send(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
          await new Promise((r) => setTimeout(r, 25));
        }
        ws.send(JSON.stringify({ type: 'CloseStream' }));
        await closed;
        assert.equal(messages[0]?.type, 'Metadata');
        assert.equal(messages[0].engine, `sherpa:${name}`, 'Metadata names the bound model serving the stream');
        const results = messages.filter((m) => m.type === 'Results');
        const interim = results.filter((m) => !m.is_final && m.channel.alternatives[0].transcript);
        const finals = results.filter((m) => m.is_final && m.channel.alternatives[0].transcript);
        assert.ok(interim.length >= 1, `interim results: ${JSON.stringify(messages.map((m) => m.type))}`);
        assert.ok(finals.length >= 1, 'a final result');
        for (const f of finals) {
          for (const word of f.channel.alternatives[0].words)
            assert.ok(
              word.start >= f.start - 1e-6 && word.end <= f.start + f.duration + 1e-6,
              JSON.stringify({ word, start: f.start, duration: f.duration }),
            );
        }
        assert.equal(t.services.lifecycle.loadCount(name), 1, 'the model loaded for batch serves the stream too');
      } finally {
        await rt.close();
      }
    });
  }
});
