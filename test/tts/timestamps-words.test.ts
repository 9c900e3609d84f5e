// The word side of word timings (src/tts/timestamps.ts): which words a text has, where engine
// events land among them, how unplaced words get their time, and the answer's ordering rules.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanWord, fillGaps, orderedWords, spansFromEvents, spokenWords, textWords } from '../../src/tts/timestamps.js';

describe('spokenWords', () => {
  test('letters, digits and marks; apostrophes inside words; offsets in UTF-16 units', () => {
    const text = "Don't stop: state-of-the-art, $20 \u{1D573}x café 3.5";
    const words = spokenWords(text);
    assert.deepEqual(
      words.map((w) => w.word),
      ["Don't", 'stop', 'state', 'of', 'the', 'art', '20', '\u{1D573}x', 'café', '3', '5'],
    );
    for (const w of words) assert.equal(text.slice(w.from, w.to), w.word);
  });

  test('linear on a long run without words, and on one 5,000-letter word', () => {
    assert.deepEqual(spokenWords("' ".repeat(20000)), []);
    assert.equal(spokenWords('a'.repeat(5000))[0]!.word.length, 5000);
  });
});

describe('textWords with readings', () => {
  test('Japanese: the analyser tokens with word characters, placed on their readings', () => {
    const readings = {
      text: 'カイギワクジ。',
      tokens: [
        { surface: '会議', reading: 'カイギ' },
        { surface: 'は', reading: 'ワ' },
        { surface: '九時', reading: 'クジ' },
        { surface: '。', reading: '。' },
      ],
    };
    assert.deepEqual(textWords('会議は九時。', readings, readings), [
      { word: '会議', from: 0, to: 3, textFrom: 0, textTo: 2 },
      { word: 'は', from: 3, to: 4, textFrom: 2, textTo: 3 },
      { word: '九時', from: 4, to: 6, textFrom: 3, textTo: 5 },
    ]);
  });

  test('Korean: words of the text as written, moved onto the hangul', () => {
    const readings = {
      text: '학교에 갑니다',
      tokens: [
        { surface: '學校', reading: '학교' },
        { surface: '에 갑니다', reading: '에 갑니다' },
      ],
    };
    const words = textWords('學校에 갑니다', null, readings);
    assert.deepEqual(
      words.map((w) => [w.word, readings.text.slice(w.from, w.to)]),
      [
        ['學校에', '학교에'],
        ['갑니다', '갑니다'],
      ],
    );
  });
});

describe('the spoken form, timed, given as written', () => {
  test('the words of one rewritten form are joined back into it, spanning their times', async () => {
    const { spokenPlan, asWritten } = await import('../../src/tts/spoken-words.js');
    const text = 'Dr. Lee paid $3.50 on 12/03/2024.';
    const plan = await spokenPlan('en-US', text, true);
    assert.equal(plan.engineText, 'Doctor Lee paid three dollars and fifty cents on December third, twenty twenty four.');
    const spans = plan.words.map((_w, k) => ({ start: k, end: k + 0.5 }));
    const written = asWritten(text, plan.words, spans);
    assert.deepEqual(
      written.words.map((w) => w.word),
      ['Dr.', 'Lee', 'paid', '$3.50', 'on', '12/03/2024'],
    );
    // "$3.50": from "three" (word 3) to "cents" (word 7); the date: "December" (9) to "four" (13).
    assert.deepEqual(written.spans, [
      { start: 0, end: 0.5 },
      { start: 1, end: 1.5 },
      { start: 2, end: 2.5 },
      { start: 3, end: 7.5 },
      { start: 8, end: 8.5 },
      { start: 9, end: 13.5 },
    ]);
    // An engine with word events (eSpeak) reads the digits itself: only the notation is rewritten.
    assert.equal((await spokenPlan('en-US', text, false)).engineText, 'Doctor Lee paid 3 dollars and 50 cents on December 3rd, 20 24.');
  });

  test('German: the time read once, the words as written', async () => {
    const { spokenPlan, asWritten } = await import('../../src/tts/spoken-words.js');
    const text = 'Um 14:30 Uhr fährt der Zug.';
    const plan = await spokenPlan('de', text, false);
    assert.equal(plan.engineText, 'Um 14 Uhr 30 fährt der Zug.');
    const written = asWritten(
      text,
      plan.words,
      plan.words.map(() => null),
    );
    assert.deepEqual(
      written.words.map((w) => w.word),
      ['Um', '14:30 Uhr', 'fährt', 'der', 'Zug'],
    );
  });
});

describe('spansFromEvents', () => {
  test('an event belongs to the word it falls in, or to the next one; words without events stay null', () => {
    const text = 'paid $20 state-of-the-art';
    const words = spokenWords(text);
    const events = [
      { word: 'paid', start: 0.1, end: 0.4, textOffset: 0 },
      { word: '$', start: 0.4, end: 0.6, textOffset: 5 },
      { word: '20', start: 0.6, end: 1.0, textOffset: 6 },
      { word: 'state', start: 1.0, end: 1.4, textOffset: 9 },
    ];
    assert.deepEqual(spansFromEvents(words, events), [
      { start: 0.1, end: 0.4 },
      { start: 0.4, end: 1.0 },
      { start: 1.0, end: 1.4 },
      null,
      null,
      null,
    ]);
  });
});

describe('fillGaps', () => {
  const w = (word: string, from: number) => ({ word, from, to: from + word.length });

  test('unplaced words take the pause after the word before them when it can hold them', () => {
    const words = [w('one', 0), w('two', 4), w('six', 8)];
    const out = fillGaps(words, [{ start: 0, end: 0.3 }, null, { start: 1, end: 1.3 }], 1.5);
    assert.deepEqual([out[1]!.word, +out[1]!.start.toFixed(6), +out[1]!.end.toFixed(6)], ['two', 0.3, 1]);
  });

  test("otherwise they share the word before them's span, by length", () => {
    const words = [w('state', 0), w('of', 6), w('the', 9), w('art', 13)];
    const out = fillGaps(words, [{ start: 1, end: 2.3 }, null, null, null], 2.3);
    assert.deepEqual(
      out.map((x) => [x.word, +x.start.toFixed(3), +x.end.toFixed(3)]),
      [
        ['state', 1, 1.5],
        ['of', 1.5, 1.7],
        ['the', 1.7, 2],
        ['art', 2, 2.3],
      ],
    );
  });

  test('leading unplaced words start at 0; nothing placed at all spreads over the audio', () => {
    const words = [w('ab', 0), w('cd', 3)];
    const out = fillGaps(words, [null, null], 2);
    assert.deepEqual(
      out.map((x) => [x.start, x.end]),
      [
        [0, 1],
        [1, 2],
      ],
    );
  });

  test('an end past the next start is cut back to it', () => {
    const out = fillGaps(
      [w('a', 0), w('b', 2)],
      [
        { start: 0, end: 0.8 },
        { start: 0.5, end: 1 },
      ],
      1,
    );
    assert.equal(out[0]!.end, 0.5);
  });
});

describe('orderedWords and cleanWord', () => {
  test('milliseconds, each start at or after the previous end, each end after its start, within the audio', () => {
    const out = orderedWords(
      [
        { word: 'a', start: 0.1, end: 0.1 },
        { word: '(b', start: 0.05, end: 0.3 },
        { word: '...', start: 0.3, end: 0.4 },
        { word: 'c.', start: 0.9, end: 1.2 },
      ],
      1.0,
    );
    assert.deepEqual(out, [
      { word: 'a', start: 0.1, end: 0.101 },
      { word: 'b', start: 0.101, end: 0.3 },
      { word: 'c', start: 0.9, end: 1 },
    ]);
  });

  test('cleanWord keeps inner punctuation and marks', () => {
    assert.equal(cleanWord('"don\'t,"'), "don't");
    assert.equal(cleanWord('(3.5)'), '3.5');
    assert.equal(cleanWord('e\u0301!'), 'e\u0301');
    assert.equal(cleanWord('?!'), '');
    // Currency and percent signs are part of the written word; alone they are none.
    assert.equal(cleanWord('($3.50,'), '$3.50');
    assert.equal(cleanWord('12%.'), '12%');
    assert.equal(cleanWord('$'), '');
  });
});
