// The catalogue: data integrity, the four /voices shapes, /languages per model (and its alias),
// /models with languages counted from the engines, and voice previews.
import { after, before, test } from 'node:test';
import { readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/config.js';
import path from 'node:path';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { loadCatalogData } from '../../src/catalog/data.js';
import { foldName } from '../../src/catalog/catalog.js';
import { FLITE_VOICES } from '../../src/engines/flite/flite-engine.js';

const FLASH_CODES = [
  'da-DK',
  'de-DE',
  'en-AU',
  'en-GB',
  'en-IN',
  'en-US',
  'es-ES',
  'es-US',
  'fil-PH',
  'fr-CA',
  'fr-FR',
  'hi-IN',
  'it-IT',
  'ja-JP',
  'ko-KR',
  'pt-BR',
  'th-TH',
  'vi-VN',
];
/** What is served: Thai is not (decision #41: eSpeak NG garbles it). */
const SERVED_FLASH_CODES = FLASH_CODES.filter((c) => c !== 'th-TH');

let t: TestApp;
let key: string;
before(async () => {
  t = await createTestApp();
  key = (await createTestAccount(t.services)).apiKey;
});
after(() => t.close());
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

test('data: 30 Aura voices (8 premium), localized unique names in every language, 62 Flash voices over the 18 codes', () => {
  const d = loadCatalogData();
  assert.equal(d.auraVoices.length, 30);
  assert.equal(d.auraVoices.filter((v) => v.premium).length, 8);
  assert.equal(
    new Set(d.auraVoices.map((v) => `${v.espeak}|${v.flite}|${v.basePitch}|${v.baseRate}`)).size,
    30,
    'each voice is a distinct combination',
  );
  assert.ok(d.auraLanguages.length >= 80);
  for (const lang of d.auraLanguages) {
    const set = d.names[lang.nameSet]!;
    const names = d.auraVoices.map((v) => set[v.gender][v.slot]);
    assert.equal(new Set(names.map((n) => foldName(n!))).size, 30, `names unique in ${lang.code}, ignoring case and accents`);
  }
  const flite: readonly string[] = FLITE_VOICES;
  assert.ok(
    d.auraVoices.every((v) => flite.includes(v.flite)),
    'Aura Flite voices exist',
  );
  assert.ok(
    d.flashVoices.filter((v) => v.language.startsWith('en-')).every((v) => flite.includes(v.engines.flite!)),
    'English Flash voices run on Flite',
  );
  assert.equal(d.flashVoices.length, 62);
  assert.deepEqual([...new Set(d.flashVoices.map((v) => v.language))].sort(), FLASH_CODES);
  for (const code of FLASH_CODES) {
    const genders = new Set(d.flashVoices.filter((v) => v.language === code).map((v) => v.gender));
    assert.deepEqual([...genders].sort(), ['female', 'male'], `${code} has voices of both genders`);
  }
  assert.equal(new Set(d.flashVoices.map((v) => foldName(v.name))).size, 62, 'Flash names are unique');
  // Flash voices of one language on the same engine speaker differ by 3+ semitones of base pitch
  // (the pitch transform itself is measured in the engine tests).
  for (const code of FLASH_CODES) {
    const voices = d.flashVoices.filter((v) => v.language === code);
    for (const [i, a] of voices.entries()) {
      for (const b of voices.slice(i + 1)) {
        const engine = code.startsWith('en-') ? 'flite' : 'espeak';
        if (a.engines[engine] === b.engines[engine]) assert.ok(Math.abs(a.basePitch - b.basePitch) >= 3, `${a.name}/${b.name} in ${code}`);
      }
    }
  }
  const auraEnglish = new Set(d.auraVoices.map((v) => d.names.en![v.gender][v.slot]));
  assert.ok(
    d.flashVoices.every((v) => !auraEnglish.has(v.name)),
    'Flash and Aura names differ',
  );
});

test('data: the committed data files are what scripts/catalog/build.mjs builds from its tables', () => {
  const out = execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'catalog', 'build.mjs'), '--check'], { encoding: 'utf8' });
  assert.match(out, /104 Aura languages, 97 name sets, 62 Flash voices/);
});

test('data: every eSpeak variant and language voice the voices name exists in the eSpeak NG package', async () => {
  const { listEspeakVoices } = await import('../../src/engines/espeak/espeak-worker.js');
  const all = await listEspeakVoices();
  // eSpeak silently falls back to the bare language voice for a variant it lacks, so a typo here
  // would make two voices sound alike: check the names against the package's variant files
  // (its voice list names only language voices).
  const init = (await import('@echogarden/espeak-ng-emscripten')).default as unknown as () => Promise<{
    FS: { readdir(p: string): string[] };
  }>;
  const variants = new Set((await init()).FS.readdir('/usr/share/espeak-ng-data/voices/!v'));
  assert.ok(variants.size > 50 && variants.has('m3') && variants.has('whisper'));
  const d = loadCatalogData();
  const used = [...d.auraVoices.map((v) => v.espeak), ...d.flashVoices.map((v) => v.engines.espeak!)];
  for (const spec of used) {
    const [variant, pitchBase] = spec.split(':');
    assert.ok(variants.has(variant!), `eSpeak variant ${variant}`);
    assert.ok(Number(pitchBase) >= 0 && Number(pitchBase) <= 100, spec);
  }
  const fileNames = new Set(
    all.filter((v) => !v.identifier.startsWith('variant/')).map((v) => v.identifier.split('/').pop()!.toLowerCase()),
  );
  const languageNames = new Set(all.flatMap((v) => v.languages.map((l) => l.toLowerCase())));
  for (const l of [...d.auraLanguages, ...d.flashLanguages])
    assert.ok(fileNames.has(l.espeak) || languageNames.has(l.espeak), `${l.code}: eSpeak voice ${l.espeak}`);
});

test('GET /models: five models, languages counted from the engines, plans', async () => {
  const res = await get('/api/v1/models');
  assert.equal(res.statusCode, 200);
  const { models } = res.json();
  assert.deepEqual(
    models.map((m: any) => m.id),
    ['aura-lite', 'aura-prime', 'aura-max', 'rapid-flash', 'rapid-max'],
  );
  const byId = Object.fromEntries(models.map((m: any) => [m.id, m]));
  assert.equal(byId['rapid-flash'].languages, 17);
  assert.equal(byId['aura-lite'].languages, t.services.catalog.languagesFor('aura-lite').length);
  assert.ok(byId['aura-lite'].languages >= 80);
  assert.deepEqual(byId['aura-max'].plans, ['pro', 'enterprise']);
  assert.deepEqual(byId['rapid-flash'].plans, ['basic', 'pro', 'enterprise']);
  assert.deepEqual(byId['aura-lite'].plans, ['free', 'basic', 'pro', 'enterprise']);
});

test('GET /languages: per model, rapid-flash exactly its 17 served codes (no Thai), and the doubled alias path', async () => {
  const flash = (await get('/api/v1/languages?model=rapid-flash')).json();
  assert.equal(flash.success, true);
  assert.equal(flash.model, 'rapid-flash');
  assert.equal(flash.total, 17);
  assert.deepEqual(flash.languages.map((l: any) => l.code).sort(), SERVED_FLASH_CODES);
  assert.deepEqual(Object.keys(flash.languages[0]).sort(), ['code', 'name', 'region']);
  const aura = (await get('/api/v1/languages?model=aura-prime')).json();
  assert.ok(aura.languages.some((l: any) => l.code === 'de' && l.name === 'German'));
  // The short codes docs/interface.md lists are served, under those exact codes, by every Aura-set model.
  const listed =
    'ar as bn bg zh hr cs da nl en-US en-GB en-IN et fi fr de el gu he hi hu id it ja kn ko lv lt ms ml mr ne no or pl pt pa ro ru sk sl es sv ta te tr uk ur vi'.split(
      ' ',
    );
  for (const model of ['aura-lite', 'aura-prime', 'aura-max', 'rapid-max']) {
    const codes = new Set((await get(`/api/v1/languages?model=${model}`)).json().languages.map((l: any) => l.code));
    assert.deepEqual(
      listed.filter((c) => !codes.has(c)),
      [],
      model,
    );
    assert.ok(!codes.has('th') && !codes.has('th-TH'), `${model} lists no Thai`);
  }
  const thai = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': key },
    payload: { text: 'สวัสดีครับ', voice: 'Aria', model: 'aura-prime', language: 'th' },
  });
  assert.equal(thai.statusCode, 400);
  assert.equal(thai.json().error.code, 'LANGUAGE_NOT_SUPPORTED');
  const alias = await get('/api/api/v1/languages?model=rapid-flash');
  assert.equal(alias.statusCode, 200);
  assert.deepEqual(alias.json(), flash);
  assert.equal(alias.headers.deprecation, '@1795564800');
  assert.equal(alias.headers.link, '</api/v1/languages>; rel="successor-version"');
  assert.equal((await get('/api/v1/languages')).headers.deprecation, undefined);
  assert.equal((await get('/api/v1/languages?model=nope')).json().error.code, 'INVALID_MODEL');
});

test('GET /voices: the four shapes, localized names, gender filter, premium marks', async () => {
  const flash = (await get('/api/v1/voices?model=rapid-flash')).json();
  assert.equal(flash.success, true);
  assert.equal(flash.total_voices, 59);
  assert.equal(flash.total_languages, 17);
  assert.deepEqual(Object.keys(flash.voices_by_language).sort(), SERVED_FLASH_CODES);
  assert.deepEqual(Object.keys(flash.voices_by_language['en-US'][0]).sort(), ['gender', 'name']);
  const flashDe = (await get('/api/v1/voices?model=rapid-flash&language=ja-JP')).json();
  assert.deepEqual(flashDe.voices_by_language, flash.voices_by_language, 'language does not rename Flash voices');

  const aura = (await get('/api/v1/voices?model=aura-prime&language=de')).json();
  assert.equal(aura.success, true);
  assert.equal(aura.total, 30);
  assert.equal(aura.language, 'de');
  assert.equal(aura.model, 'aura-prime');
  assert.deepEqual(aura.supported_models, ['aura-lite', 'aura-prime', 'aura-max', 'rapid-max']);
  assert.equal(typeof aura.note, 'string');
  assert.equal(aura.voices[0].name, 'Anna');
  assert.equal(aura.voices.filter((v: any) => v.premium).length, 8);
  const en = (await get('/api/v1/voices?model=aura-prime')).json();
  assert.equal(en.language, 'en-US');
  assert.equal(en.voices[0].name, 'Aria');

  const basic = (await get('/api/v1/voices?language=fr&gender=female')).json();
  assert.equal(basic.total, 15);
  const v = basic.voices[0];
  assert.deepEqual(Object.keys(v).sort(), ['gender', 'language', 'name', 'premium', 'preview_url', 'voice_id']);
  assert.equal(v.language, 'fr');
  assert.equal(v.name, 'Camille');
  assert.match(v.preview_url, /^http:\/\/.+\/api\/v1\/voices\/aura-01\/preview\?language=fr/);

  const ext = (await get('/api/v1/voices?gender=male')).json();
  assert.equal(ext.total, 15);
  const e = ext.voices[0];
  for (const f of ['id', 'name', 'gender', 'age', 'style', 'languages', 'sample_url', 'premium']) assert.ok(f in e, f);
  assert.ok(e.languages.includes('ja'));

  assert.equal((await get('/api/v1/voices?gender=other')).statusCode, 400);
  assert.equal((await get('/api/v1/voices?model=aura-prime&language=zu')).json().error.code, 'LANGUAGE_NOT_SUPPORTED');
});

test('voice previews are real audio, served without a key, and cached', async () => {
  const url = '/api/v1/voices/aura-01/preview?language=de&model=aura-lite';
  const first = await t.app.inject({ method: 'GET', url });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.headers['content-type'], 'audio/wav');
  assert.ok(first.rawPayload.length > 24000, 'at least half a second of audio');
  const started = performance.now();
  const again = await t.app.inject({ method: 'GET', url });
  assert.ok(performance.now() - started < 200);
  assert.deepEqual(again.rawPayload, first.rawPayload);
  assert.ok(
    readdirSync(path.join(t.services.config.dataDir, 'previews')).includes('espeak--aura-01--de--r3.wav'),
    'cached on disk in the data directory',
  );
  const sameEngine = await t.app.inject({ method: 'GET', url: '/api/v1/voices/aura-01/preview?language=de-DE&model=aura-prime' });
  assert.deepEqual(sameEngine.rawPayload, first.rawPayload, 'models on the same engine share a sample');
  // Two listeners asking at once for a sample not made yet share one synthesis.
  const premium = t.services.catalog.data.auraVoices.find((v) => v.premium)!;
  const [a, b] = await Promise.all(
    [0, 1].map(() => t.app.inject({ method: 'GET', url: `/api/v1/voices/${premium.id}/preview?language=es-ES` })),
  );
  assert.equal(a!.statusCode, 200, 'premium voices have previews too');
  assert.deepEqual(a!.rawPayload, b!.rawPayload);
  const flash = await t.app.inject({ method: 'GET', url: '/api/v1/voices/Amelia/preview' });
  assert.equal(flash.statusCode, 200);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/voices/nobody/preview' })).json().error.code, 'INVALID_VOICE');
});

test('OpenAPI: the catalogue routes carry their query and response schemas; the doubled alias is hidden', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const voices = doc.paths['/api/v1/voices'].get;
  assert.deepEqual(voices.parameters.map((p: any) => p.name).sort(), ['gender', 'language', 'model']);
  const shapes = voices.responses['200'].content['application/json'].schema.anyOf;
  assert.deepEqual(
    shapes.map((s: any) => s.title),
    ['Flash voices', 'Aura voices for a model', 'Voices in a language', 'Aura base voices'],
  );
  assert.ok(doc.paths['/api/v1/languages'].get.responses['200']);
  assert.ok(doc.paths['/api/v1/models'].get.responses['200']);
  assert.ok(doc.paths['/api/v1/voices/{voice}/preview'].get);
  assert.equal(doc.paths['/api/api/v1/languages'], undefined);
});

test('catalogue errors over HTTP: bad query values and language codes', async () => {
  const badModel = await get('/api/v1/voices?model=aura-ultra');
  assert.equal(badModel.statusCode, 400);
  assert.equal(badModel.json().error.code, 'INVALID_MODEL');
  assert.equal((await get('/api/v1/voices?language=xx-YY')).json().error.code, 'INVALID_LANGUAGE');
  assert.equal(
    (await get('/api/v1/voices?model=rapid-flash&language=xx')).statusCode,
    200,
    'rapid-flash lists every language; language does not filter or rename',
  );
  assert.equal((await get('/api/v1/voices?model=aura-lite&language=sw-KE')).json().language, 'sw');
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/voices' })).statusCode, 401, 'listings need a key');
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/api/v1/voices/aura-01/preview?language=zu' })).json().error.code,
    'LANGUAGE_NOT_SUPPORTED',
  );
});
