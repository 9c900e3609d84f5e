// Numbers, dates, times, money, ordinals, counters and abbreviations read as a person reads them
// (issue 29, item 3). For each language a table of written forms and the words a reader says;
// the check is on the audio's phonemes: eSpeak NG (the program build the service speaks with)
// must say the service's text for the written form with the same phonemes as the words spelled
// out (stress marks and pauses aside). Plain cardinals stay digits in both columns: each engine
// reads them itself (eSpeak says a German "14" with a shorter vowel than the word "vierzehn", so
// the words would differ in a phoneme no listener hears); what the table checks is the notation
// around them. The Japanese rows go through the dictionary readings too.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { runProgram } from '../../src/engines/espeak/espeak-program.js';
import { speakableText, closeReadings } from '../../src/tts/readings/readings.js';
import { normalizeForSpeech } from '../../src/tts/normalize/normalize.js';

after(() => closeReadings());

/** eSpeak's phonemes for a text, without stress marks, pauses and spaces. */
async function phonemes(voice: string, text: string): Promise<string> {
  const r = await runProgram(['-q', '-x', '-v', voice, '-f', '/in.txt'], { '/in.txt': text });
  return r.out.join(' ').replace(/[',_|!\s-]/g, '');
}

const TABLE: Record<string, { voice: string; rows: Array<[written: string, spoken: string]> }> = {
  'en-US': {
    voice: 'gmw/en-US',
    rows: [
      ['The meeting is on 12/03/2024.', 'The meeting is on December third, 20 24.'],
      ['It costs $3.50 today.', 'It costs three dollars and fifty cents today.'],
      ['Dr. Smith arrives at 9:00.', "Doctor Smith arrives at nine o'clock."],
      ['We fixed 1,250 bugs.', 'We fixed one thousand two hundred fifty bugs.'],
      ['Fruit, e.g. apples.', 'Fruit, for example apples.'],
    ],
  },
  es: {
    voice: 'roa/es',
    rows: [
      ['El tren sale a las 14:30.', 'El tren sale a las 14 y 30.'],
      ['Cuesta 3,50 €.', 'Cuesta 3 euros con 50.'],
      ['Nació el 15/03/2024.', 'Nació el 15 de marzo de 2024.'],
      ['Es el 1.º de la lista.', 'Es el primero de la lista.'],
      ['El Sr. García llegó.', 'El señor García llegó.'],
    ],
  },
  de: {
    voice: 'gmw/de',
    rows: [
      ['Der Zug fährt um 14:30 Uhr.', 'Der Zug fährt um 14 Uhr 30.'],
      ['Es kostet 3,50 €.', 'Es kostet 3 Euro 50.'],
      ['Wir kommen am 3. Mai.', 'Wir kommen am dritten Mai.'],
      ['Das ist z. B. gut.', 'Das ist zum Beispiel gut.'],
      ['Am 15.03.2024 regnet es.', 'Am fünfzehnten März 2024 regnet es.'],
    ],
  },
  fr: {
    voice: 'roa/fr',
    rows: [
      ['Le train part à 14h30.', 'Le train part à 14 heures 30.'],
      ['Il coûte 3,50 €.', 'Il coûte 3 euros 50.'],
      ['Le 1er mai est férié.', 'Le premier mai est férié.'],
      ['Au 2e étage.', 'Au deuxième étage.'],
      ['M. Dupont arrive.', 'Monsieur Dupont arrive.'],
    ],
  },
  it: {
    voice: 'roa/it',
    rows: [
      ['Il treno parte alle 14:30.', 'Il treno parte alle 14 e 30.'],
      ['Costa 3,50 €.', 'Costa 3 euro e 50.'],
      ['Il 1° maggio è festa.', 'Il primo maggio è festa.'],
      ['Il 15/03/2024 piove.', 'Il 15 marzo 2024 piove.'],
    ],
  },
  pt: {
    voice: 'roa/pt',
    rows: [
      ['O comboio parte às 14h30.', 'O comboio parte às 14 horas e 30.'],
      ['Custa R$ 3,50.', 'Custa 3 reais e 50 centavos.'],
      ['Chegou no 1º dia.', 'Chegou no primeiro dia.'],
      ['O Sr. Silva chegou.', 'O senhor Silva chegou.'],
    ],
  },
  cmn: {
    voice: 'sit/cmn',
    rows: [
      ['这个三明治3.5元。', '这个三明治三点五元。'],
      ['会议在2:30开始。', '会议在两点三十分开始。'],
      ['增长了50%。', '增长了百分之五十。'],
      ['2024年3月15日', '二零二四年三月十五日'],
    ],
  },
};

for (const [language, { voice, rows }] of Object.entries(TABLE)) {
  test(`${language}: written forms are said as their spelled-out words`, async () => {
    const bad: string[] = [];
    for (const [written, spoken] of rows) {
      const said = await speakableText(language, written);
      const [a, b] = await Promise.all([phonemes(voice, said), phonemes(voice, spoken)]);
      if (a !== b) bad.push(`${written} -> "${said}": ${a} vs ${b}`);
    }
    assert.deepEqual(bad, []);
  });
}

const JAPANESE: Array<[written: string, spoken: string]> = [
  ['明日は3月15日です。', 'アシタワサンガツジューゴニチデス。'],
  ['一人で来ました。', 'ヒトリデキマシタ。'],
  ['九時に始まります。', 'クジニハジマリマス。'],
  ['4月1日', 'シガツツイタチ'],
  ['8分', 'ハップン'],
  ['会議は14:30から', 'カイギワジューヨジサンジュップンカラ'],
  ['学校へ行く', 'ガッコーエイク'],
  ['本を読む', 'ホンオヨム'],
  ['3本', 'サンボン'],
  ['20歳', 'ハタチ'],
];

test("ja: dates, times and counters with a reader's readings, particles as particles", async () => {
  const bad: string[] = [];
  for (const [written, spoken] of JAPANESE) {
    const said = await speakableText('ja', written);
    const [a, b] = await Promise.all([phonemes('jpx/ja', said), phonemes('jpx/ja', spoken)]);
    if (a !== b) bad.push(`${written} -> "${said}": ${a} vs ${b}`);
  }
  assert.deepEqual(bad, []);
});

test('text without numbers or abbreviations is left as it is; hostile text stays linear', () => {
  for (const lang of ['en-US', 'de', 'fr', 'es', 'it', 'pt', 'ja', 'cmn']) {
    assert.equal(normalizeForSpeech(lang, 'Hello there'), 'Hello there');
    const hostile = '1:1:1:1.1.1.1,1,1,1 €$€$ 12h12h12h '.repeat(2000);
    const t0 = performance.now();
    normalizeForSpeech(lang, hostile);
    assert.ok(performance.now() - t0 < 2000, `${lang}: ${performance.now() - t0} ms`);
  }
});
