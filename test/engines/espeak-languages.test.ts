// languages.json against the eSpeak NG package itself: every language voice the package has is
// mapped, every mapped voice really speaks, and the codes are well formed and unique.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { espeakLanguages } from '../../src/engines/espeak/espeak-engine.js';
import { listEspeakVoices, synthesizeEspeak } from '../../src/engines/espeak/espeak-worker.js';
import { medianF0Wide } from './tts-measure.js';

// Left out on purpose: a test voice, and an input-script variant of Cantonese that shares "yue".
const NOT_MAPPED = new Set(['art/xex', 'sit/yue-Latn-jyutping']);

test('languages.json covers every eSpeak NG language voice in the package', async () => {
  const voices = (await listEspeakVoices()).filter((v) => !v.identifier.startsWith('variant/') && !NOT_MAPPED.has(v.identifier));
  assert.ok(voices.length >= 100, `${voices.length} language voices`);
  const mapped = new Set(espeakLanguages().map((l) => l.espeakVoice));
  // eSpeak selects a language voice by its file name (the identifier's last part).
  const missing = voices.filter((v) => !mapped.has(v.identifier.split('/').pop()!.toLowerCase()));
  assert.deepEqual(
    missing.map((v) => v.identifier),
    [],
  );
});

test('codes are unique BCP 47 tags with a name and a region', () => {
  const langs = espeakLanguages();
  assert.equal(new Set(langs.map((l) => l.code)).size, langs.length);
  for (const l of langs) {
    assert.match(l.code, /^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, l.code);
    assert.ok(l.name && l.region, l.code);
  }
  const byCode = new Map(langs.map((l) => [l.code, l.espeakVoice]));
  assert.equal(byCode.get('de'), 'de');
  assert.equal(byCode.get('de-DE'), 'de');
  assert.equal(byCode.get('en-US'), 'en-us');
  assert.equal(byCode.get('en-GB'), 'en');
  assert.equal(byCode.get('pt-BR'), 'pt-br');
  assert.equal(byCode.get('zh'), 'cmn');
});

// Digits are read in every language except these, which read only their own words.
const SAMPLE_TEXT: Record<string, string> = { chr: 'ᎣᏏᏲ', cv: 'Салам', sjn: 'mae govannen' };

test('every mapped eSpeak voice exists and speaks', async () => {
  const names = [...new Set(espeakLanguages().map((l) => l.espeakVoice))];
  for (const voice of names) {
    const r = await synthesizeEspeak({
      text: SAMPLE_TEXT[voice] ?? '1 2 3',
      voice,
      wpm: 300,
      basePitch: 50,
      semitones: 0,
      emphasis: false,
    });
    let peak = 0;
    for (const s of r.samples) peak = Math.max(peak, Math.abs(s));
    assert.ok(r.samples.length > 2000 && peak > 1000, `${voice}: ${r.samples.length} samples, peak ${peak}`);
  }
});

test('language names eSpeak declares (en-gb, fr-fr, no) select their voice file, with the variant', async () => {
  const speak = (voice: string) =>
    synthesizeEspeak({ text: 'one two three four', voice, wpm: 175, basePitch: 50, semitones: 0, emphasis: false });
  for (const name of ['en-gb', 'fr-fr', 'no']) assert.ok((await speak(name)).samples.length > 10000, name);
  // eSpeak adds random jitter, so the variant shows in the pitch, not in identical samples.
  const male = await speak('en-gb');
  const female = await speak('en-gb+f3');
  const ratio = medianF0Wide(female.samples, female.sampleRate) / medianF0Wide(male.samples, male.sampleRate);
  assert.ok(ratio > 1.4, `f3 variant F0 ratio ${ratio}`);
  await assert.rejects(speak('xx-nothing'), /no voice xx-nothing/);
});
