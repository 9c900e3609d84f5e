// The TTS engine registry on the real engines and the shipped bindings (config/parla.json).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EnginePool } from '../../src/engines/pool.js';
import { TtsEngineRegistry, createTtsEngines, engineVoiceFor } from '../../src/engines/registry.js';
import { EspeakEngine } from '../../src/engines/espeak/espeak-engine.js';
import { FliteEngine } from '../../src/engines/flite/flite-engine.js';
import type { Config } from '../../src/config.js';
import { testConfig } from '../helpers/env.js';

function withBindings(config: Config, extra: Record<string, string[]>): Config {
  return { ...config, product: { ...config.product, ttsBindings: { ...config.product.ttsBindings, ...extra } } };
}

describe('TtsEngineRegistry', () => {
  let pool: EnginePool;
  let config: Config;
  let espeak: EspeakEngine;
  let flite: FliteEngine;

  before(() => {
    config = testConfig();
    pool = new EnginePool({ threads: 1, maxQueue: 4 });
    espeak = new EspeakEngine(pool);
    flite = new FliteEngine(pool);
  });
  after(async () => {
    await pool.close();
  });

  test('the shipped bindings: English on Flite (aura-lite: kal16 only; aura-max: Festival for voices it has, finished), the rest on eSpeak', () => {
    const reg = new TtsEngineRegistry(config, createTtsEngines(config, pool));
    for (const model of ['aura-prime', 'rapid-flash', 'rapid-max']) {
      for (const lang of ['en-US', 'en-GB', 'en-AU', 'en-IN']) assert.equal(reg.resolveTtsEngine(model, lang)?.id, 'flite', `${model} ${lang}`);
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
    assert.equal(engineVoiceFor(studio, man), 'rms');
    assert.deepEqual(reg.unknownBindings(), []);
  });

  test('null for a language no engine of the chain serves, or a model without bindings', () => {
    const reg = new TtsEngineRegistry(config, [flite, espeak]);
    assert.equal(reg.resolveTtsEngine('aura-prime', 'xx-XX'), null);
    assert.equal(reg.resolveTtsEngine('no-such-model', 'en-US'), null);
    assert.deepEqual([...reg.languagesForModel('no-such-model')], []);
  });

  test('languagesForModel is the union of what the chain really serves', () => {
    const reg = new TtsEngineRegistry(withBindings(config, { 'flite-only': ['flite'] }), [flite, espeak]);
    const prime = reg.languagesForModel('aura-prime');
    for (const l of [...flite.languages(), ...espeak.languages()]) assert.ok(prime.has(l), l);
    assert.equal(prime.size, new Set([...flite.languages(), ...espeak.languages()]).size);
    assert.deepEqual([...reg.languagesForModel('flite-only')].sort(), [...flite.languages()].sort());
    assert.ok(reg.languagesForModel('aura-lite').has('de-DE'));
    assert.ok(!reg.languagesForModel('flite-only').has('de-DE'));
  });

  test('an unavailable engine is skipped: English falls through to eSpeak; a Flite-only model serves nothing', async () => {
    const noFlite = new FliteEngine(pool, { binary: '/nonexistent/flite' });
    const reg = new TtsEngineRegistry(withBindings(config, { 'flite-only': ['flite'] }), [noFlite, espeak]);
    assert.equal(reg.resolveTtsEngine('aura-prime', 'en-US')?.id, 'espeak');
    assert.equal(reg.resolveTtsEngine('flite-only', 'en-US'), null);
    assert.deepEqual([...reg.languagesForModel('flite-only')], []);
    // The fallback really speaks.
    const r = await reg.resolveTtsEngine('aura-prime', 'en-US')!.synthesize({ text: 'Hello.', engineVoice: '', language: 'en-US', speed: 1, pitch: 0, style: 'normal' });
    assert.ok(r.samples.length > 5000);
  });

  test('chain order decides; engine ids nothing registers are reported and skipped', () => {
    const reg = new TtsEngineRegistry(withBindings(config, { reversed: ['espeak', 'flite'], neural: ['sherpa-kokoro', 'flite'] }), [flite, espeak]);
    assert.equal(reg.resolveTtsEngine('reversed', 'en-US')?.id, 'espeak');
    assert.equal(reg.resolveTtsEngine('neural', 'en-US')?.id, 'flite');
    // The shipped chains' other engines are not registered here either.
    assert.deepEqual(reg.unknownBindings(), ['flite-lite', 'studio-festival', 'studio-flite', 'studio-espeak', 'sherpa-kokoro']);
  });
});
