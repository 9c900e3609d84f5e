// OpenAI's /v1/audio/translations through the official `openai` client, served because cipher-max
// is bound (as `parla models bind` does) to a generated multilingual Whisper model, which
// translates. The model has random weights, so what it says is noise: the tests check the task's
// plumbing (the recognizer was configured to translate: verbose_json's task is what the model's
// thread decoded with), which engine served, the response formats, the model mapping rule and the
// billing. An English-only engine cannot translate. (The generated decoder's next token depends on
// the last prompt token only, which is no_timestamps whatever the task, so its words cannot show
// the task; a real multilingual Whisper's do.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import OpenAI from 'openai';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/env.js';
import { multipart } from '../helpers/multipart.js';
import { generateSherpaModels, installVerifiedSttModels } from '../helpers/sherpa-models.js';
import { flite } from '../helpers/speech.js';
import { writeOperatorSettings } from '../../src/models/operator-settings.js';

const tmp = tempDir('parla-openai-translate-');
const dataDir = path.join(tmp.dir, 'data');
let t: TestApp;
let key: string;
let accountId: string;
let client: OpenAI;
let wav: string;

before(async () => {
  const g = generateSherpaModels(path.join(tmp.dir, 'generated'));
  await installVerifiedSttModels(path.join(dataDir, 'models'), [
    { name: 'whisper-gen', from: g.whisper },
    // An English-only recognizer: it cannot translate.
    { name: 'nemo-gen', from: g.nemoCtc, languages: ['en'] },
  ]);
  writeOperatorSettings(dataDir, { modelBindings: { 'cipher-max': 'whisper-gen', 'lucid-mono': 'nemo-gen' } });
  t = await createTestApp({ PARLA_DATA_DIR: dataDir, PARLA_MODEL_TTL: '600', METRICS_TOKEN: 'operator-token-translate' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
  wav = flite('The quick brown fox jumps over the lazy dog.');
});
after(async () => {
  await t.close();
  tmp.cleanup();
});

describe('translations with a multilingual Whisper installed', () => {
  test('only the model served by the multilingual Whisper translates; the English-only one does not', () => {
    assert.deepEqual(t.services.stt.translatingModels(), ['cipher-max']);
    assert.equal(t.services.registry.sttBinding('lucid-mono')!.engine.translates, false);
  });

  test('whisper-1: served by cipher-max on the Whisper model, its recognizer set to translate; billed as the native transcription', async () => {
    const before = await t.services.store.getBalance(accountId, 'live');
    const { data: translation, response } = await client.audio.translations
      .create({ file: createReadStream(wav), model: 'whisper-1', response_format: 'verbose_json' })
      .withResponse();
    // The SDK types the verbose translation as {text}; the body is OpenAI's verbose_json.
    const data = translation as unknown as { task: string; duration: number; text: string; segments: unknown[] };
    assert.equal(data.task, 'translate', 'the model thread reports the task it decoded with');
    assert.ok(data.duration > 1.5 && data.duration < 4, String(data.duration));
    assert.equal(typeof data.text, 'string');
    assert.ok(Array.isArray(data.segments));
    assert.equal(response.headers.get('x-parla-model'), 'cipher-max');
    const used = Number(response.headers.get('x-credits-used'));
    // The same price as the native endpoint for the same audio and model, and the balance moved by it.
    const { body, contentType } = await multipart(readFileSync(wav), { model: 'cipher-max' }, 'audio.wav');
    const native = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/transcribe',
      headers: { 'x-api-key': key, 'content-type': contentType },
      payload: body,
    });
    assert.equal(native.statusCode, 200, native.body);
    assert.equal(native.json().engine, 'sherpa:whisper-gen');
    assert.equal(used, Number(native.headers['x-credits-used']));
    assert.ok(used > 0);
    assert.equal(await t.services.store.getBalance(accountId, 'live'), before - 2 * used);
    // The recognition was the Whisper model's (the engine label of the recognition metrics).
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer operator-token-translate' } }))
      .body;
    assert.match(metrics, /parla_engine_real_time_factor_count\{task="recognition",engine="sherpa:whisper-gen"\} [1-9]/);
  });

  test('every response format; a model id whose engine cannot translate is served by the one that can', async () => {
    const json = await client.audio.translations.create({ file: createReadStream(wav), model: 'whisper-1' });
    assert.equal(typeof json.text, 'string');
    const text = await client.audio.translations.create({ file: createReadStream(wav), model: 'whisper-1', response_format: 'text' });
    assert.equal(String(text).trim(), json.text.trim());
    for (const [format, shape] of [
      ['srt', /^(1\n\d\d:\d\d:\d\d,\d{3} --> |$)/],
      ['vtt', /^WEBVTT/],
    ] as const) {
      const out = await client.audio.translations.create({ file: createReadStream(wav), model: 'whisper-1', response_format: format });
      assert.match(String(out), shape, format);
    }
    const { response } = await client.audio.translations
      .create({ file: createReadStream(wav), model: 'gpt-4o-mini-transcribe' })
      .withResponse();
    assert.equal(response.headers.get('x-parla-model'), 'cipher-max', 'cipher-fast (PocketSphinx) cannot translate: cipher-max serves');
    const parla = await client.audio.translations
      .create({ file: createReadStream(wav), model: 'lucid-mono', response_format: 'verbose_json' })
      .withResponse();
    assert.equal(parla.response.headers.get('x-parla-model'), 'cipher-max');
    assert.equal((parla.data as unknown as { task: string }).task, 'translate');
    // Transcription on the same model is still transcription.
    const transcribed = await client.audio.transcriptions.create({
      file: createReadStream(wav),
      model: 'whisper-1',
      response_format: 'verbose_json',
    });
    assert.equal((transcribed as unknown as { task: string }).task, 'transcribe');
  });

  test('errors in OpenAI shape: an unknown model, no file, not audio', async () => {
    await assert.rejects(
      client.audio.translations.create({ file: createReadStream(wav), model: 'whisper-9' }),
      (err: unknown) => err instanceof OpenAI.BadRequestError && (err.error as { param?: string }).param === 'model',
    );
    const form = new FormData();
    form.set('model', 'whisper-1');
    const res = await fetch(`${client.baseURL}/audio/translations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'missing_file');
    await assert.rejects(
      client.audio.translations.create({ file: new File([Buffer.from('not audio at all')], 'a.wav'), model: 'whisper-1' }),
      (err: unknown) => err instanceof OpenAI.APIError && err.status === 422,
    );
  });
});

describe('the engine', () => {
  test('the Whisper engine returns the task it decoded with; an English-only engine refuses to translate', async () => {
    const pcm = new Int16Array(16000);
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(6000 * Math.sin(i / 7));
    const whisper = t.services.registry.sttBinding('cipher-max')!.engine;
    const r = await whisper.recognize(pcm, { language: 'en', profile: 'default', task: 'translate' });
    assert.equal(r.task, 'translate');
    assert.equal((await whisper.recognize(pcm, { language: 'en', profile: 'default' })).task, 'transcribe');
    const nemo = t.services.registry.sttBinding('lucid-mono')!.engine;
    await assert.rejects(nemo.recognize(pcm, { language: 'en', profile: 'default', task: 'translate' }), /cannot translate/);
  });
});
