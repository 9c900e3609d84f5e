// Builds the catalogue data files in src/catalog/data/ from the tables beside this script:
//   languages.tsv -> languages.json (Aura languages: code, name, region, eSpeak voice, name set)
//   names.txt     -> aura-names.json (15 female + 15 male given names per name set)
//   the FLASH table below -> flash-voices.json (62 voices over the 18 rapid-flash languages)
// Run: node scripts/catalog/build.mjs  (--check: only verify the committed files are up to date)
import { readFileSync, writeFileSync } from 'node:fs';

const here = new URL('.', import.meta.url);
const out = new URL('../../src/catalog/data/', import.meta.url);

const languages = readFileSync(new URL('languages.tsv', here), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => {
    const [code, name, region, espeak, nameSet] = l.split('\t');
    return { code, name, region, espeak, nameSet };
  });

const names = {};
for (const line of readFileSync(new URL('names.txt', here), 'utf8').split('\n')) {
  if (!line.trim() || line.startsWith('#')) continue;
  const [set, female, male] = line.split('|').map((s) => s.trim());
  names[set] = { female: female.split(/\s+/), male: male.split(/\s+/) };
}
for (const l of languages) if (!names[l.nameSet]) throw new Error(`no names for ${l.code} (${l.nameSet})`);
// Every Aura voice needs its own name in every language: 15 names per gender, none repeated
// (case-insensitively) across both genders of a set.
for (const [set, { female, male }] of Object.entries(names)) {
  if (female.length !== 15 || male.length !== 15)
    throw new Error(`${set}: ${female.length} female and ${male.length} male names, need 15 each`);
  const all = [...female, ...male].map((n) => n.toLowerCase());
  if (new Set(all).size !== 30) throw new Error(`${set}: repeated name ${all.find((n, i) => all.indexOf(n) !== i)}`);
}

// rapid-flash: 62 voices with fixed English names over its 18 languages (English first, so the
// best-known names are the American ones). English voices run on
// Flite; the others on eSpeak NG with a variant. fil-PH has no offline Filipino voice: eSpeak's
// Indonesian rules read Tagalog's phonetic Latin spelling (documented in docs/engines.md).
const FLASH_LANGUAGES = {
  'en-US': { name: 'English', region: 'United States', espeak: 'en-us' },
  'en-GB': { name: 'English', region: 'United Kingdom', espeak: 'en-gb' },
  'en-AU': { name: 'English', region: 'Australia', espeak: 'en-gb' },
  'en-IN': { name: 'English', region: 'India', espeak: 'en-gb' },
  'da-DK': { name: 'Danish', region: 'Denmark', espeak: 'da' },
  'de-DE': { name: 'German', region: 'Germany', espeak: 'de' },
  'es-ES': { name: 'Spanish', region: 'Spain', espeak: 'es' },
  'es-US': { name: 'Spanish', region: 'United States', espeak: 'es-419' },
  'fil-PH': { name: 'Filipino', region: 'Philippines', espeak: 'id' },
  'fr-CA': { name: 'French', region: 'Canada', espeak: 'fr' },
  'fr-FR': { name: 'French', region: 'France', espeak: 'fr' },
  'hi-IN': { name: 'Hindi', region: 'India', espeak: 'hi' },
  'it-IT': { name: 'Italian', region: 'Italy', espeak: 'it' },
  'ja-JP': { name: 'Japanese', region: 'Japan', espeak: 'ja' },
  'ko-KR': { name: 'Korean', region: 'South Korea', espeak: 'ko' },
  'pt-BR': { name: 'Portuguese', region: 'Brazil', espeak: 'pt-br' },
  'th-TH': { name: 'Thai', region: 'Thailand', espeak: 'th' },
  'vi-VN': { name: 'Vietnamese', region: 'Vietnam', espeak: 'vi' },
};
const PER_LANGUAGE = { 'en-US': 10, 'en-GB': 4, 'en-AU': 3, 'en-IN': 3 };
const FEMALE =
  'Amelia Charlotte Evelyn Harper Madison Beatrice Florence Matilda Isla Diana Abigail Bella Cora Daisy Eleanor Fiona Gemma Holly Iris Jade Kate Lily Mia Naomi Paige Quinn Rose Sadie Tessa Violet Willow'.split(
    ' ',
  );
const MALE =
  'Benjamin Daniel Gabriel Isaac Nathan Edward George Lachlan Arthur Blake Connor Dominic Elliot Finn Graham Harvey Ian Jack Kevin Liam Mason Noah Peter Reid Samuel Tyler Victor Wesley Xavier Zachary Ryan'.split(
    ' ',
  );
const FEMALE_ESPEAK = [
  'f2:55',
  'f3:60',
  'f4:50',
  'Alicia:52',
  'Andrea:58',
  'Annie:50',
  'belinda:54',
  'linda:48',
  'steph:56',
  'anika:60',
  'f1:62',
  'f5:46',
  'aunty:50',
  'steph3:52',
  'steph2:50',
  'grandma:44',
];
const MALE_ESPEAK = [
  'm1:50',
  'm2:45',
  'm3:48',
  'm4:42',
  'm5:50',
  'm6:55',
  'm7:44',
  'Alex:52',
  'benjamin:47',
  'caleb:53',
  'david:46',
  'Michael:50',
  'edward:45',
  'boris:40',
  'max:50',
  'norbert:46',
];

const flash = [];
let f = 0;
let m = 0;
let i = 0;
// Within a language, the k-th voice of a gender gets the k-th pitch and rate: English voices of one
// gender share few Flite speakers (all women are slt), so pitch 3+ semitones apart tells them apart.
const PITCHES = [0, 3, -3, 6, -6];
const RATES = [1.0, 0.92, 1.08, 0.96, 1.04];
// Flite reads every English code alike, so the k-th voices of en-US, en-GB, en-AU and en-IN would
// be the same speaker at the same pitch and rate (and en-US's first woman the Aura voice Aria):
// each English language moves its voices' pitch and rate a little, so no two differently named
// voices sound the same (a test compares the audio of every pair).
const ENGLISH_SHIFT = {
  'en-US': { pitch: 1, rate: 1.0 },
  'en-GB': { pitch: -1, rate: 0.97 },
  'en-AU': { pitch: 2, rate: 1.03 },
  'en-IN': { pitch: -2, rate: 0.98 },
};
// Flite's rms ignores Flite's F0 settings, so it only gets voices within a semitone of its own
// pitch (a larger shift of its audio cost the recognizer 10-30 points); kal16 and awb take any
// pitch natively, but awb slowed below x0.95 is heard much worse (awb +2 st x0.89: 16.7%).
const fliteMale = (pitch, rate, k) => (Math.abs(pitch) <= 1 ? 'rms' : rate < 0.95 ? 'kal16' : ['kal16', 'awb'][k % 2]);
for (const [code] of Object.entries(FLASH_LANGUAGES)) {
  const n = PER_LANGUAGE[code] ?? 3;
  const seen = { female: 0, male: 0 };
  for (let k = 0; k < n; k++, i++) {
    const gender = i % 2 === 0 ? 'female' : 'male';
    const nth = seen[gender]++;
    const name = gender === 'female' ? FEMALE[f++] : MALE[m++];
    const english = code.startsWith('en-');
    const shift = ENGLISH_SHIFT[code] ?? { pitch: 0, rate: 1 };
    const basePitch = PITCHES[nth] + shift.pitch;
    const baseRate = Math.round(RATES[nth] * shift.rate * 100) / 100;
    flash.push({
      name,
      language: code,
      gender,
      engines: english
        ? {
            flite: gender === 'female' ? 'slt' : fliteMale(basePitch, baseRate, m),
            espeak: gender === 'female' ? FEMALE_ESPEAK[i % 16] : MALE_ESPEAK[i % 16],
          }
        : { espeak: gender === 'female' ? FEMALE_ESPEAK[i % 16] : MALE_ESPEAK[i % 16] },
      basePitch,
      baseRate,
    });
  }
}
if (flash.length !== 62) throw new Error(`expected 62 Flash voices, built ${flash.length}`);
if (flash.some((v) => !v.name) || new Set(flash.map((v) => v.name)).size !== 62)
  throw new Error('Flash voice names must be 62 distinct names');

const files = {
  'languages.json': `${JSON.stringify({ aura: languages, flash: Object.entries(FLASH_LANGUAGES).map(([code, v]) => ({ code, ...v })) }, null, 1)}\n`,
  'aura-names.json': `${JSON.stringify(names, null, 1)}\n`,
  'flash-voices.json': `${JSON.stringify({ voices: flash }, null, 1)}\n`,
};
// --check: fail when the committed data files differ from what these tables build.
if (process.argv.includes('--check')) {
  const stale = Object.keys(files).filter((f) => readFileSync(new URL(f, out), 'utf8') !== files[f]);
  if (stale.length) {
    console.error(`out of date (run node scripts/catalog/build.mjs): ${stale.join(', ')}`);
    process.exit(1);
  }
} else {
  for (const [f, text] of Object.entries(files)) writeFileSync(new URL(f, out), text);
}
console.log(`${languages.length} Aura languages, ${Object.keys(names).length} name sets, ${flash.length} Flash voices`);
