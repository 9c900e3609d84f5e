// Installed neural voices taking over the Aura voices (docs/engines.md "Aura voices on a neural
// model"), end to end over HTTP: a generated Kokoro (speakers af, af_bella, am_adam, bf_emma,
// bm_george, named as kokoro-en-v0_19 names them) and a generated single-speaker Piper voice
// stated female in speakers.txt, installed and verified as `parla models pull` does. aura-max
// English is then spoken by the Kokoro model at once, each voice by a speaker of its gender;
// other product models keep their engines unless the operator binds a model to them. Generated
// models say noise: the tests check which engine and speaker served, and that the audio differs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/env.js';
import { generateSherpaModels, installVerifiedTtsModels } from '../helpers/sherpa-models.js';
import { writeOperatorSettings } from '../../src/models/operator-settings.js';
import { engineVoiceFor } from '../../src/engines/engine.js';

const tmp = tempDir('parla-neural-voices-');
const dataDir = path.join(tmp.dir, 'data');
let t: TestApp;
let key: string;

before(async () => {
  const g = generateSherpaModels(path.join(tmp.dir, 'generated'));
  await installVerifiedTtsModels(path.join(dataDir, 'models'), [
    { name: 'kokoro-gen', from: g.kokoro },
    { name: 'piper-gen', from: g.piper, languages: ['en-US'], speakers: "# the operator states the speaker's gender\n0 female amy\n" },
  ]);
  t = await createTestApp({ PARLA_DATA_DIR: dataDir, PARLA_MODEL_TTL: '600' });
  ({ apiKey: key } = await createTestAccount(t.services, { credits: 1_000_000 }));
});
after(async () => {
  await t?.close();
  tmp.cleanup();
});

function generate(app: TestApp, apiKey: string, model: string, voice: string, language = 'en-US') {
  return app.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    payload: { text: 'The neural voice reads this sentence.', model, voice, language, format: 'wav' },
  });
}

describe('installed neural voices take over aura-max', () => {
  test('aura-max tries the verified voice models first (Kokoro, then by name), then its configured chain; aura-prime is untouched', () => {
    const chain = t.services.registry.ttsChain('aura-max').map((e) => e.id);
    assert.deepEqual(chain.slice(0, 2), ['sherpa:kokoro-gen', 'sherpa:piper-gen']);
    assert.ok(chain.includes('studio-festival') && chain.includes('studio-flite'), chain.join(','));
    assert.ok(!t.services.registry.ttsChain('aura-prime').some((e) => e.id.startsWith('sherpa')));
  });

  test('each Aura voice maps to a speaker of its gender and accent, stably; different genders get different speakers', () => {
    const kokoro = t.services.registry.ttsEngine('sherpa:kokoro-gen')!;
    const voice = (gender: string, slot: number) => ({ neural: `${gender}:${slot}` });
    // American female speakers af (0), af_bella (1); American male am_adam (2); British bf_emma (3), bm_george (4).
    assert.equal(engineVoiceFor(kokoro, voice('female', 0), 'en-US'), 'kokoro-gen:0');
    assert.equal(engineVoiceFor(kokoro, voice('female', 1), 'en-US'), 'kokoro-gen:1');
    assert.equal(engineVoiceFor(kokoro, voice('female', 2), 'en-US'), 'kokoro-gen:0', 'slot modulo the speakers of that gender');
    assert.equal(engineVoiceFor(kokoro, voice('male', 0), 'en-US'), 'kokoro-gen:2');
    assert.equal(engineVoiceFor(kokoro, voice('male', 5), 'en-US'), 'kokoro-gen:2');
    assert.equal(engineVoiceFor(kokoro, voice('female', 0), 'en-GB'), 'kokoro-gen:3');
    assert.equal(engineVoiceFor(kokoro, voice('male', 1), 'en-GB'), 'kokoro-gen:4');
    const piper = t.services.registry.ttsEngine('sherpa:piper-gen')!;
    assert.equal(engineVoiceFor(piper, voice('female', 7), 'en-US'), 'piper-gen:0');
    assert.equal(engineVoiceFor(piper, voice('male', 0), 'en-US'), undefined, 'no male speaker: the chain falls through');
  });

  test('POST /tts/generate with aura-max English voices is spoken by the Kokoro model (X-Engine), loaded on first use; a female and a male voice sound different', async () => {
    assert.equal(t.services.lifecycle.loadCount('tts:kokoro-gen'), 0);
    const aria = await generate(t, key, 'aura-max', 'Aria');
    assert.equal(aria.statusCode, 200, aria.body);
    assert.equal(aria.headers['x-engine'], 'sherpa:kokoro-gen');
    assert.equal(aria.headers['content-type'], 'audio/wav');
    const orion = await generate(t, key, 'aura-max', 'Orion');
    assert.equal(orion.statusCode, 200, orion.body);
    assert.equal(orion.headers['x-engine'], 'sherpa:kokoro-gen');
    assert.equal(t.services.lifecycle.loadCount('tts:kokoro-gen'), 1, 'one load serves both');
    assert.notDeepEqual(aria.rawPayload, orion.rawPayload, 'different speakers, different audio');
    const british = await generate(t, key, 'aura-max', 'Aria', 'en-GB');
    assert.equal(british.statusCode, 200, british.body);
    assert.equal(british.headers['x-engine'], 'sherpa:kokoro-gen');
    // aura-prime keeps Flite: its audio differs from the neural voice's.
    const prime = await generate(t, key, 'aura-prime', 'Aria');
    assert.equal(prime.statusCode, 200, prime.body);
    assert.equal(prime.headers['x-engine'], 'flite');
    assert.notDeepEqual(prime.rawPayload, aria.rawPayload);
    // A language no voice model speaks keeps the configured chain.
    const german = await generate(t, key, 'aura-max', 'Anna', 'de-DE');
    assert.equal(german.statusCode, 200, german.body);
    assert.equal(german.headers['x-engine'], 'studio-espeak');
  });

  test("POST /tts/stream with an aura-max voice streams the Kokoro model's audio (X-Engine)", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tts/stream',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: { text: 'Streaming from the neural voice.', model: 'aura-max', voice: 'Orion', language: 'en-US', sample_rate: 24000 },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-engine'], 'sherpa:kokoro-gen');
    assert.ok(res.rawPayload.byteLength > 2400, `audio: ${res.rawPayload.byteLength} bytes`);
  });

  test('GET /health reports the engines of each TTS model and the voice models loaded now', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(res.statusCode, 200);
    const tts = res.json().models.tts as Array<{ model: string; engines: string[]; loaded: string[] }>;
    const max = tts.find((m) => m.model === 'aura-max')!;
    assert.deepEqual(max.engines.slice(0, 2), ['sherpa:kokoro-gen', 'sherpa:piper-gen']);
    assert.deepEqual(max.loaded, ['tts:kokoro-gen']);
    assert.deepEqual(tts.find((m) => m.model === 'aura-prime')!.loaded, []);
    assert.ok(!res.body.includes(dataDir), 'no file paths');
  });
});

describe('the operator binds a voice model to another product model', () => {
  test('aura-prime bound to the female Piper voice: female voices speak with it, male ones keep Flite', async () => {
    writeOperatorSettings(dataDir, { modelBindings: { 'aura-prime': 'piper-gen' } });
    const other = await createTestApp({ PARLA_DATA_DIR: dataDir });
    try {
      const { apiKey } = await createTestAccount(other.services, { credits: 1_000_000 });
      assert.equal(other.services.registry.ttsChain('aura-prime')[0]!.id, 'sherpa:piper-gen');
      const luna = await generate(other, apiKey, 'aura-prime', 'Luna');
      assert.equal(luna.statusCode, 200, luna.body);
      assert.equal(luna.headers['x-engine'], 'sherpa:piper-gen');
      const leo = await generate(other, apiKey, 'aura-prime', 'Leo');
      assert.equal(leo.statusCode, 200, leo.body);
      assert.equal(leo.headers['x-engine'], 'flite');
    } finally {
      await other.close();
      writeOperatorSettings(dataDir, { modelBindings: {} });
    }
  });
});
