// The model registry on the real engines and the shipped bindings (config/parla.json): TTS engine
// chains, STT model chains (extra engines passed in at construction), the LANGUAGE_NOT_SUPPORTED rule
// and the prices.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkerPool } from '../../src/workers/pool.js';
import { createWorkerPool } from '../../src/tasks/table.js';
import { ModelRegistry, STT_MODELS, TTS_MODELS } from '../../src/registry/model-registry.js';
import { createTtsEngines } from '../../src/engines/create.js';
import { engineVoiceFor } from '../../src/engines/engine.js';
import { PocketSphinxEngine } from '../../src/engines/pocketsphinx/pocketsphinx-engine.js';
import { ApiError } from '../../src/errors.js';
import type { SttBinding } from '../../src/config.js';
import { EspeakEngine } from '../../src/engines/espeak/espeak-engine.js';
import { FliteEngine } from '../../src/engines/flite/flite-engine.js';
import type { Config } from '../../src/config.js';
import { testConfig } from '../helpers/env.js';

function withBindings(config: Config, extra: Record<string, string[]>): Config {
  return { ...config, product: { ...config.product, ttsBindings: { ...config.product.ttsBindings, ...extra } } };
}

describe('ModelRegistry', () => {
  let pool: WorkerPool;
  let config: Config;
  let espeak: EspeakEngine;
  let flite: FliteEngine;

  before(() => {
    config = testConfig();
    pool = createWorkerPool({ threads: 1, maxQueue: 4 });
    espeak = new EspeakEngine(pool);
    flite = new FliteEngine(pool);
  });
  after(async () => {
    await pool.close();
  });

  test('the shipped bindings: English on Flite (aura-lite: kal16 only; aura-max: Festival for voices it has, finished), the rest on eSpeak', () => {
    const reg = new ModelRegistry(config, { tts: createTtsEngines(config, pool) });
    for (const model of ['aura-prime', 'rapid-flash', 'rapid-max']) {
      for (const lang of ['en-US', 'en-GB', 'en-AU', 'en-IN'])
        assert.equal(reg.resolveTtsEngine(model, lang)?.id, 'flite', `${model} ${lang}`);
      assert.equal(reg.resolveTtsEngine(model, 'de-DE')?.id, 'espeak');
    }
    assert.equal(reg.resolveTtsEngine('aura-lite', 'en-US')?.id, 'flite-lite');
    assert.equal(reg.resolveTtsEngine('aura-lite', 'ja')?.id, 'espeak');
    const woman = { espeak: 'f3:55', flite: 'slt', 'flite-lite': 'kal16@185', festival: 'cmu_us_slt_arctic_hts' };
    const man = { espeak: 'm3:45', flite: 'rms', 'flite-lite': 'kal16' };
    assert.equal(reg.resolveTtsEngine('aura-max', 'en-US', woman)?.id, 'studio-festival');
    assert.equal(reg.resolveTtsEngine('aura-max', 'en-GB', man)?.id, 'studio-flite');
    assert.equal(reg.resolveTtsEngine('aura-max', 'de-DE', woman)?.id, 'studio-espeak');
    const studio = reg.resolveTtsEngine('aura-max', 'en-US', man)!;
    assert.equal(engineVoiceFor(studio, man, 'en-US'), 'rms');
    // A voice with no mapping on any engine of the chain: LANGUAGE_NOT_SUPPORTED.
    assert.equal(
      codeOf(() => reg.requireTtsEngine('aura-max', 'en-US', { sherpa: 'piper' })),
      'LANGUAGE_NOT_SUPPORTED',
    );
    assert.deepEqual(reg.unknownTtsBindings(), []);
  });

  test('null for a language no engine of the chain serves, or a model without bindings', () => {
    const reg = new ModelRegistry(config, { tts: [flite, espeak] });
    assert.equal(reg.resolveTtsEngine('aura-prime', 'xx-XX'), null);
    assert.equal(reg.resolveTtsEngine('no-such-model', 'en-US'), null);
    assert.deepEqual([...reg.ttsLanguages('no-such-model')], []);
  });

  test('languagesForModel is the union of what the chain really serves', () => {
    const reg = new ModelRegistry(withBindings(config, { 'flite-only': ['flite'] }), { tts: [flite, espeak] });
    const prime = reg.ttsLanguages('aura-prime');
    for (const l of [...flite.languages(), ...espeak.languages()]) assert.ok(prime.has(l), l);
    assert.equal(prime.size, new Set([...flite.languages(), ...espeak.languages()]).size);
    assert.deepEqual([...reg.ttsLanguages('flite-only')].sort(), [...flite.languages()].sort());
    assert.ok(reg.ttsLanguages('aura-lite').has('de-DE'));
    assert.ok(!reg.ttsLanguages('flite-only').has('de-DE'));
  });

  test('an unavailable engine is skipped: English falls through to eSpeak; a Flite-only model serves nothing', async () => {
    const noFlite = new FliteEngine(pool, { binary: '/nonexistent/flite', native: false });
    const reg = new ModelRegistry(withBindings(config, { 'flite-only': ['flite'] }), { tts: [noFlite, espeak] });
    assert.equal(reg.resolveTtsEngine('aura-prime', 'en-US')?.id, 'espeak');
    assert.equal(reg.resolveTtsEngine('flite-only', 'en-US'), null);
    assert.deepEqual([...reg.ttsLanguages('flite-only')], []);
    // The fallback really speaks.
    const r = await reg
      .resolveTtsEngine('aura-prime', 'en-US')!
      .synthesize({ text: 'Hello.', engineVoice: '', language: 'en-US', speed: 1, pitch: 0, style: 'normal' });
    assert.ok(r.samples.length > 5000);
  });

  test('chain order decides; engine ids nothing registers are reported and skipped', () => {
    const reg = new ModelRegistry(withBindings(config, { reversed: ['espeak', 'flite'], neural: ['sherpa-kokoro', 'flite'] }), {
      tts: [flite, espeak],
    });
    assert.equal(reg.resolveTtsEngine('reversed', 'en-US')?.id, 'espeak');
    assert.equal(reg.resolveTtsEngine('neural', 'en-US')?.id, 'flite');
    // The shipped chains' other engines are not registered here either.
    assert.deepEqual(reg.unknownTtsBindings(), ['flite-lite', 'studio-festival', 'studio-flite', 'studio-espeak', 'sherpa-kokoro']);
  });
});

function withSttBindings(config: Config, extra: Record<string, SttBinding[]>): Config {
  return { ...config, product: { ...config.product, sttBindings: { ...config.product.sttBindings, ...extra } } };
}

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? err.code : `not an ApiError: ${String(err)}`;
  }
  return undefined;
};

describe('ModelRegistry: STT and prices', () => {
  const config = testConfig();
  // Not loaded: the registry only asks it for its status and languages.
  const pocketsphinx = new PocketSphinxEngine({ decodersPerProfile: 1, profiles: ['fast'], preload: false });

  test("the first engine of a model's chain that this node has serves it; one it does not have is skipped", () => {
    const reg = new ModelRegistry(
      withSttBindings(config, {
        'cipher-fast': [
          { engine: 'sherpa-whisper', profile: 'tiny' },
          { engine: 'pocketsphinx', profile: 'fast' },
        ],
      }),
      { stt: [pocketsphinx] },
    );
    assert.equal(reg.sttBinding('cipher-fast')?.engine.id, 'pocketsphinx');
    assert.equal(reg.sttBinding('cipher-fast')?.profile, 'fast');
    assert.deepEqual(reg.sttLanguages('cipher-fast'), pocketsphinx.languages());
    assert.equal(reg.resolveSttLanguage('cipher-fast', 'en-US'), 'en-US');
    assert.equal(
      codeOf(() => reg.resolveSttLanguage('cipher-fast', 'de')),
      'LANGUAGE_NOT_SUPPORTED',
    );
  });

  test('no engine for a model: LANGUAGE_NOT_SUPPORTED, for the binding and for the language', () => {
    const reg = new ModelRegistry(config, { stt: [] });
    assert.equal(reg.sttBinding('cipher-fast'), null);
    assert.equal(
      codeOf(() => reg.requireSttBinding('cipher-fast')),
      'LANGUAGE_NOT_SUPPORTED',
    );
    assert.equal(
      codeOf(() => reg.resolveSttLanguage('cipher-fast', undefined)),
      'LANGUAGE_NOT_SUPPORTED',
    );
    assert.equal(
      codeOf(() => new ModelRegistry(config, { tts: [] }).requireTtsEngine('aura-prime', 'en-US')),
      'LANGUAGE_NOT_SUPPORTED',
    );
  });

  test("models are checked against their endpoint: unknown, or the other family's, is INVALID_MODEL", () => {
    const reg = new ModelRegistry(config, { stt: [pocketsphinx] });
    assert.equal(reg.checkSttModel('lucid-mono', 'universal'), 'lucid-mono');
    assert.equal(
      codeOf(() => reg.checkSttModel('lucid-mono', 'cipher')),
      'INVALID_MODEL',
    );
    assert.equal(
      codeOf(() => reg.checkSttModel('whisper-1', 'universal')),
      'INVALID_MODEL',
    );
  });

  test('prices come from the configured tables: per character, per started second', () => {
    const reg = new ModelRegistry(config, {});
    const pricing = config.product.pricing;
    for (const m of TTS_MODELS) assert.equal(reg.ttsCredits(m, 120), pricing.ttsCreditsPerCharacter[m]! * 120, m);
    for (const m of STT_MODELS) {
      assert.equal(reg.sttRate(m), pricing.sttCreditsPerSecond[m], m);
      assert.equal(reg.sttCredits(m, 2.2), pricing.sttCreditsPerSecond[m]! * 3, m);
      assert.equal(reg.sttCredits(m, 0.1), pricing.sttCreditsPerSecond[m]!, m);
    }
  });
});
