// Every parser that sees user text finishes hostile input in linear time (issue 19: "<a" and 4,998
// spaces froze the event loop for 41 s). Each input is 50,000+ characters of what the parser's
// loops or its old regexes' quantifiers repeat; the bound is generous (a linear parse takes a few
// milliseconds; the old regexes took minutes to hours).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMarkup, parseBreakTime } from '../../src/tts/markup.js';
import { splitSentences } from '../../src/tts/sentences.js';
import { groupIntoSentences } from '../../src/tts/stream-plan.js';
import { isRealLanguage, normalizeCode } from '../../src/domain/language-codes.js';
import { foldName } from '../../src/catalog/catalog.js';
import { parseSttFields } from '../../src/stt/request.js';
import { normalizeKeyword } from '../../src/engines/pocketsphinx/pronounce.js';

const N = 50_000;
const BOUND_MS = 1000;

function quick(name: string, run: () => unknown): void {
  const started = performance.now();
  try {
    run();
  } catch {
    // Refusing the input (INVALID_MARKUP, ...) is fine; taking long is not.
  }
  const ms = performance.now() - started;
  assert.ok(ms < BOUND_MS, `${name}: ${ms.toFixed(0)} ms for ${N} characters`);
}

const markupInputs: Record<string, string> = {
  '"<a" + spaces': '<a' + ' '.repeat(N),
  '"<a" + tabs and no-break spaces': '<a' + '\t\u00a0'.repeat(N / 2),
  '"<a " + letters': '<a ' + 'x'.repeat(N),
  '"<a " + "/"': '<a ' + '/'.repeat(N),
  '"<a " + spaces + "/"': '<a ' + ' /'.repeat(N / 2),
  '"<" repeated': '<'.repeat(N),
  '"<a" repeated': '<a'.repeat(N / 2),
  '"<a " repeated': '<a '.repeat(N / 3),
  '"</" repeated': '</'.repeat(N / 2),
  'a long tag name': '<' + 'a'.repeat(N),
  'a long tag name, closed': '<' + 'a'.repeat(N) + '>',
  '"<break" + spaces + "/>"': '<break' + ' '.repeat(N) + '/>',
  'break time of spaces': '<break time=' + ' '.repeat(N) + '"1s"/>',
  'break time of digits': '<break time="' + '1'.repeat(N) + 'x"/>',
  'break time of digits and dots': '<break time="' + '1.'.repeat(N / 2) + '"/>',
  'break time of spaces inside quotes': '<break time="1' + ' '.repeat(N) + 'x"/>',
  'break attribute of "time"': '<break' + ' time'.repeat(N / 5) + '="1s"/>',
  '">" repeated': '>'.repeat(N),
  'many valid tags': '<laugh/>'.repeat(N / 8),
  'many breaks': '<break time="1ms"/>'.repeat(N / 19),
  'nested spans': '<whisper><emphasis>a</emphasis></whisper>'.repeat(N / 40),
};

for (const [name, text] of Object.entries(markupInputs)) {
  test(`markup parsing is linear: ${name}`, () => quick(name, () => parseMarkup(text)));
}

test('break time parsing is linear', () => {
  quick('digits', () => parseBreakTime('1'.repeat(N) + 'x', '<break/>'));
  quick('spaces', () => parseBreakTime(' '.repeat(N) + '1' + ' '.repeat(N) + 'x', '<break/>'));
  quick('dots', () => parseBreakTime('1.'.repeat(N / 2), '<break/>'));
});

const sentenceInputs: Record<string, string> = {
  'dots then a letter': '.'.repeat(N) + 'x',
  'every end mark': '.!?。！？…'.repeat(N / 7) + 'x',
  '"Dr. " repeated (abbreviations never split)': 'Dr. '.repeat(N / 4),
  initials: 'J. '.repeat(N / 3),
  'one long word before a dot': 'a'.repeat(N) + ' . x',
  'a long word of letters and dots': 'a.'.repeat(N / 2) + ' x',
  'closers after a dot': '.' + '"'.repeat(N) + 'x',
  'spaces after a dot': '.' + ' '.repeat(N) + 'x',
  'no punctuation': 'word '.repeat(N / 5),
  'no spaces': 'x'.repeat(N),
};

for (const [name, text] of Object.entries(sentenceInputs)) {
  test(`sentence splitting is linear: ${name}`, () => {
    quick(name, () => splitSentences(text));
    quick(`${name} (stream groups)`, () => groupIntoSentences([{ type: 'text', text, whisper: false, emphasis: false }]));
    quick(`${name} (markup, then stream groups)`, () => groupIntoSentences(parseMarkup(text).items));
  });
}

test('language codes, voice names and STT fields are linear', () => {
  for (const s of ['a'.repeat(N), 'en' + '-ab'.repeat(N / 3), '-'.repeat(N), '_'.repeat(N), 'en-' + '1'.repeat(N)]) {
    quick('language code', () => isRealLanguage(normalizeCode(s)));
  }
  quick('voice name with combining marks', () => foldName('a\u0301'.repeat(N / 2)));
  for (const kw of [':1'.repeat(2000), ':' + '1'.repeat(3999) + 'x', ':-1.1'.repeat(800), ','.repeat(4000)]) {
    quick('keywords', () =>
      parseSttFields(
        new Map([
          ['keywords', kw],
          ['prompt', "a'".repeat(2000)],
        ]),
        'lucid',
      ),
    );
  }
  quick('keyword', () => normalizeKeyword('a'.repeat(N)));
});

// The normalization before synthesis (src/tts/normalize/): every language's rules on runs of what
// their patterns repeat (digit groups, separators, currency signs, times, ordinals, kanji numerals).
const normalizeInputs: Record<string, string> = {
  digits: '1'.repeat(N),
  'digit groups with commas': '1,'.repeat(N / 2),
  'digit groups with dots': '1.'.repeat(N / 2),
  'digit groups with spaces': '1 '.repeat(N / 2),
  'digits and a euro sign far away': `${'1 '.repeat(N / 2)}x €`,
  'currency signs and digits': '€1'.repeat(N / 2),
  'R$ and digits': 'R$ 1,'.repeat(N / 5),
  colons: '1:'.repeat(N / 2),
  'h and digits': '1h'.repeat(N / 2),
  'dates without a year': '1/1/'.repeat(N / 4),
  'German ordinals without a month': '3. '.repeat(N / 3),
  'abbreviation dots': 'z. '.repeat(N / 3),
  'kanji numerals': '一二三'.repeat(N / 3),
  'full-width digits': '１２'.repeat(N / 2),
  decimals: '1.1.'.repeat(N / 4),
  'percent signs': '1%'.repeat(N / 2),
};
for (const [name, text] of Object.entries(normalizeInputs)) {
  test(`normalization is linear: ${name}`, async () => {
    const { normalizeForSpeech } = await import('../../src/tts/normalize/normalize.js');
    for (const lang of ['en-US', 'es', 'de', 'fr', 'it', 'pt', 'ja', 'cmn'])
      quick(`${name} (${lang})`, () => normalizeForSpeech(lang, text));
  });
  // Word timings' spoken form: the same rules with each character's origin kept, then English
  // numbers in words (src/tts/spoken-words.ts).
  test(`the spoken form for word timings is linear: ${name}`, async () => {
    const { normalizeMapped } = await import('../../src/tts/normalize/normalize.js');
    const { spellNumbersEnglish } = await import('../../src/tts/normalize/spell-en.js');
    quick(`${name} (spelled)`, () => spellNumbersEnglish(normalizeMapped('en-US', text)));
    for (const lang of ['de', 'ja', 'cmn']) quick(`${name} (${lang}, mapped)`, () => normalizeMapped(lang, text));
  });
}
