// The catalogue's rules without HTTP: language code matching (short codes, aliases, regions),
// INVALID_LANGUAGE vs LANGUAGE_NOT_SUPPORTED, voice resolution per model and language (wrong voice
// set, localized names, premium gating), and language counts taken from the engines really present.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { listModels, listVoices } from '../../src/catalog/listings.js';
import { loadCatalogData } from '../../src/catalog/data.js';
import { ModelRegistry } from '../../src/registry/model-registry.js';
import { FliteEngine } from '../../src/engines/flite/flite-engine.js';
import { ApiError } from '../../src/errors.js';
import type { Plan } from '../../src/domain/accounts.js';

let t: TestApp;
let catalog: Catalog;
before(async () => {
  t = await createTestApp();
  catalog = t.services.catalog;
});
after(() => t.close());

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  assert.fail('expected an ApiError');
}

const select = (model: string, voice: string, language?: string, plan: Plan = 'pro') =>
  catalog.selectVoice({ model, voice, language: language ?? 'en-US', languageGiven: language !== undefined, plan });

test('language codes: exact, case and underscore, short codes, regional fallback, aliases', () => {
  assert.equal(catalog.resolveLanguage('aura-prime', 'de'), 'de');
  assert.equal(catalog.resolveLanguage('aura-prime', 'de-AT'), 'de', 'a region the model lacks falls back to its language');
  assert.equal(catalog.resolveLanguage('aura-prime', 'EN_gb'), 'en-GB');
  assert.equal(catalog.resolveLanguage('aura-prime', 'en'), 'en-US', 'several English variants: the preferred one');
  assert.equal(catalog.resolveLanguage('aura-prime', 'pt'), 'pt', 'an exact code wins over a regional default');
  assert.equal(catalog.resolveLanguage('aura-prime', 'nb-NO'), 'no');
  assert.equal(catalog.resolveLanguage('aura-prime', 'cmn'), 'zh');
  assert.equal(catalog.resolveLanguage('rapid-flash', 'de'), 'de-DE', 'one German code on rapid-flash: unambiguous');
  assert.equal(catalog.resolveLanguage('rapid-flash', 'ja'), 'ja-JP');
  assert.equal(catalog.resolveLanguage('rapid-flash', 'fil'), 'fil-PH');
  assert.equal(catalog.resolveLanguage('rapid-flash', 'tl'), 'fil-PH');
  assert.equal(catalog.resolveLanguage('rapid-flash', 'en'), 'en-US');
  assert.equal(catalog.resolveLanguage('rapid-flash', 'pt'), 'pt-BR');
  assert.equal(catalog.resolveLanguage('rapid-flash', 'fr'), 'fr-FR');
});

test('language errors: not a language code vs a language the model does not serve', () => {
  for (const code of ['xx', 'xx-YY', 'english', '12', 'q']) {
    const e = apiError(() => catalog.resolveLanguage('aura-prime', code));
    assert.equal(e.code, 'INVALID_LANGUAGE', code);
    assert.equal(e.status, 400);
  }
  const zu = apiError(() => catalog.resolveLanguage('aura-prime', 'zu'));
  assert.equal(zu.code, 'LANGUAGE_NOT_SUPPORTED');
  assert.equal(zu.status, 400);
  for (const code of ['sw', 'ru', 'de-AT', 'en-NZ'])
    assert.equal(apiError(() => catalog.resolveLanguage('rapid-flash', code)).code, 'LANGUAGE_NOT_SUPPORTED', code);
  const deAt = apiError(() => catalog.resolveLanguage('rapid-flash', 'de-AT'));
  assert.ok((deAt.details as { suggestions: string[] }).suggestions.includes('de-DE'), 'suggests the served code of that language');
});

test('Aura voices: localized names resolve to one base voice with its engine mapping', () => {
  const d = loadCatalogData();
  const en = select('aura-prime', 'Aria');
  assert.equal(en.language, 'en-US');
  assert.equal(en.voice.id, 'aura-01');
  assert.deepEqual(en.voice.engineVoices, {
    espeak: d.auraVoices[0]!.espeak,
    flite: d.auraVoices[0]!.flite,
    'flite-lite': 'kal16@185',
    festival: 'cmu_us_slt_arctic_hts',
    neural: 'female:0',
  });
  const de = select('aura-lite', 'anna', 'de-DE');
  assert.equal(de.language, 'de');
  assert.equal(de.voice.id, 'aura-01');
  assert.equal(de.voice.name, 'Anna');
  assert.equal(select('rapid-max', 'Aria').voice.id, 'aura-01', 'rapid-max uses the Aura voices');
  const finnish = catalog.data.auraVoices.find((v) => catalog.auraName(v, 'fi') === 'Väinö')!;
  assert.equal(select('aura-prime', 'VAINO', 'fi').voice.id, finnish.id, 'names match ignoring case and accents');
  assert.equal(select('aura-prime', 'Väinö', 'fi').voice.name, 'Väinö');
});

test('voice errors: wrong set for the model, names from another language, unknown names', () => {
  const auraOnFlash = apiError(() => select('rapid-flash', 'Aria'));
  assert.equal(auraOnFlash.code, 'INVALID_VOICE');
  assert.equal(auraOnFlash.status, 400);
  assert.ok((auraOnFlash.details as { suggestions: string[] }).suggestions.includes('Amelia'));
  for (const model of ['aura-lite', 'aura-prime', 'aura-max', 'rapid-max']) {
    const e = apiError(() => select(model, 'Amelia'));
    assert.equal(e.code, 'INVALID_VOICE', model);
    assert.match(e.message, /Flash voice/);
    assert.equal((e.details as { suggestions: string[] }).suggestions.length, 5);
  }
  const elsewhere = apiError(() => select('aura-prime', 'Aria', 'de'));
  assert.equal(elsewhere.code, 'INVALID_VOICE');
  assert.deepEqual((elsewhere.details as { suggestions: string[] }).suggestions, ['Anna']);
  const fromJapanese = apiError(() => select('aura-prime', catalog.auraName(catalog.data.auraVoices[4]!, 'ja'), 'fr'));
  assert.deepEqual((fromJapanese.details as { suggestions: string[] }).suggestions, [catalog.auraName(catalog.data.auraVoices[4]!, 'fr')]);
  assert.equal(apiError(() => select('aura-prime', 'Nobody')).code, 'INVALID_VOICE');
  const flashWrongLanguage = apiError(() => select('rapid-flash', 'Amelia', 'de-DE'));
  assert.equal(flashWrongLanguage.code, 'INVALID_VOICE');
  const germanFlash = catalog.data.flashVoices.filter((v) => v.language === 'de-DE').map((v) => v.name);
  assert.deepEqual((flashWrongLanguage.details as { suggestions: string[] }).suggestions, germanFlash);
});

test('Flash voices speak their own language; a request language does not rename them', () => {
  const own = select('rapid-flash', 'Amelia');
  assert.equal(own.language, 'en-US');
  assert.equal(own.voice.engineVoices.flite, 'slt');
  const german = catalog.data.flashVoices.find((v) => v.language === 'de-DE')!;
  const de = select('rapid-flash', german.name);
  assert.equal(de.language, 'de-DE', 'without a language, the voice speaks its own');
  assert.equal(select('rapid-flash', german.name, 'de').language, 'de-DE');
  assert.deepEqual(de.voice.engineVoices, german.engines);
});

test('premium Aura voices: 403 VOICE_ACCESS_DENIED on free and basic, usable on pro and enterprise', () => {
  const premium = catalog.data.auraVoices.filter((v) => v.premium);
  assert.equal(premium.length, 8);
  for (const v of premium) {
    const name = catalog.auraName(v, 'it');
    for (const plan of ['free', 'basic'] as const) {
      const e = apiError(() => select('aura-prime', name, 'it', plan));
      assert.equal(e.code, 'VOICE_ACCESS_DENIED');
      assert.equal(e.status, 403);
    }
    for (const plan of ['pro', 'enterprise'] as const) assert.equal(select('aura-prime', name, 'it', plan).voice.id, v.id);
  }
  const standard = catalog.data.auraVoices.find((v) => !v.premium)!;
  assert.equal(select('aura-lite', catalog.auraName(standard, 'en-US'), undefined, 'free').voice.id, standard.id);
});

test('model language counts come from the engines present, not from the data files', () => {
  const { config } = t.services;
  const espeak = t.services.registry.ttsEngine('espeak')!;
  const noFlite = new FliteEngine(t.services.pool, { binary: '/nonexistent/flite', native: false });
  assert.equal(noFlite.status().available, false);

  const full = Object.fromEntries(listModels(catalog, config).models.map((m) => [m.id, m.languages]));
  assert.equal(full['rapid-flash'], 17, 'the 18 codes of the spec less Thai (decision #41)');
  // The data's Aura languages less Thai, which no engine here speaks well (decision #41).
  const auraCodes = loadCatalogData().auraLanguages.map((l) => l.code);
  assert.ok(auraCodes.includes('th'));
  assert.equal(full['aura-lite'], auraCodes.length - 1);

  // Without eSpeak, only Flite's English remains (aura-max's chain names the studio engines, and
  // aura-lite's Flite is its own kal16-only engine: neither is registered here); without any
  // engine, nothing is served.
  const fliteOnly = new Catalog(config, new ModelRegistry(config, { tts: [t.services.registry.ttsEngine('flite')!] }));
  const counts = Object.fromEntries(listModels(fliteOnly, config).models.map((m) => [m.id, m.languages]));
  assert.deepEqual(counts, { 'aura-lite': 0, 'aura-prime': 4, 'aura-max': 0, 'rapid-flash': 4, 'rapid-max': 4 });
  assert.equal(apiError(() => fliteOnly.resolveLanguage('aura-prime', 'de')).code, 'LANGUAGE_NOT_SUPPORTED');
  // Listings follow: the voices speak only what some Aura-set model still serves.
  const ext = listVoices(fliteOnly, {}, 'http://x') as { voices: Array<{ languages: string[] }> };
  assert.deepEqual(ext.voices[0]!.languages, ['en-US', 'en-GB', 'en-AU', 'en-IN']);
  assert.equal((listVoices(fliteOnly, { language: 'en-GB' }, 'http://x') as { total: number }).total, 30);

  const none = new Catalog(config, new ModelRegistry(config, { tts: [noFlite] }));
  assert.ok(listModels(none, config).models.every((m) => m.languages === 0));

  // A missing Flite leaves English to eSpeak: the counts do not change (aura-max: eSpeak through
  // its studio finishing).
  const espeakOnly = new Catalog(
    config,
    new ModelRegistry(config, { tts: [noFlite, espeak, t.services.registry.ttsEngine('studio-espeak')!] }),
  );
  assert.deepEqual(Object.fromEntries(listModels(espeakOnly, config).models.map((m) => [m.id, m.languages])), full);
});
