// smart_format and punctuate, table-driven (issue 4 asks for at least 40 cases).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { smartFormat } from '../../src/stt/smart-format.js';
import { punctuatedText } from '../../src/stt/punctuate.js';
import type { WordTiming } from '../../src/engines/engine.js';

/** Words 0.25 s each, back to back; "|" marks a 1 s pause, "," a 0.45 s pause. */
function timed(spoken: string): WordTiming[] {
  const out: WordTiming[] = [];
  let t = 0;
  for (const tok of spoken.split(' ')) {
    if (tok === '|') {
      t += 1;
      continue;
    }
    if (tok === ',') {
      t += 0.45;
      continue;
    }
    out.push({ word: tok, start: t, end: t + 0.25, confidence: 0.9 });
    t += 0.25;
  }
  return out;
}
const fmt = (s: string) =>
  smartFormat(timed(s))
    .map((w) => w.word)
    .join(' ');

const SMART: Array<[string, string]> = [
  ['twenty five dollars', '$25'],
  ['it costs twenty five dollars and fifty cents', 'it costs $25.50'],
  ['one hundred euros', '€100'],
  ['three pounds', '£3'],
  ['fifty cents', '$0.50'],
  ['two thousand five hundred dollars', '$2,500'],
  ['fifty percent', '50%'],
  ['seven percent of people', '7% of people'],
  ['three point five percent', '3.5%'],
  ['one hundred twenty three', '123'],
  ['two hundred and five', '205'],
  ['a hundred people', '100 people'],
  ['twelve apples', '12 apples'],
  ['forty two', '42'],
  ['one million two hundred thousand', '1200000'.replace(/^(\d)(\d{3})(\d{3})$/, '$1,$2,$3')],
  ['ten thousand', '10,000'],
  ['three thousand and one', '3001'],
  ['the twenty first century', 'the 21st century'],
  ['the third time', 'the third time'],
  ['the thirteenth floor', 'the 13th floor'],
  ['the one hundredth visitor', 'the 100th visitor'],
  ['the twenty second of may', 'the 22nd of may'],
  ['january fifth twenty twenty four', 'January 5, 2024'],
  ['march third', 'March 3'],
  ['december twenty fifth nineteen ninety nine', 'December 25, 1999'],
  ['july fourth two thousand five', 'July 4, 2005'],
  ['meet at three thirty p m', 'meet at 3:30 PM'],
  ["ten o'clock", '10:00'],
  ['seven a m', '7:00 AM'],
  ['eleven forty five pm', '11:45 PM'],
  ['nine oh five a m', '9:05 AM'],
  ['one of the best', 'one of the best'],
  ['i have two cats', 'i have two cats'],
  ['may i help you', 'may i help you'],
  ['he is the one', 'he is the one'],
  ['no numbers here at all', 'no numbers here at all'],
  ['two thousand and five', '2005'],
  ['in two thousand and five we moved', 'in 2005 we moved'],
  ['a thousand dollars', '$1,000'],
  ['a thousand and one nights', '1001 nights'],
  ['twenty dollars and five cents', '$20.05'],
  ['ten pounds and twenty pence', '£10.20'],
  ['two euros and fifty cents', '€2.50'],
  ['one point five million dollars', '$1.5 million'],
  ['pi is three point one four', 'pi is 3.14'],
  ['one hundred percent', '100%'],
  ['born in nineteen eighty four', 'born in 1984'],
  ['the fifty first state', 'the 51st state'],
  ["at five o'clock", 'at 5:00'],
  ['back by seven fifteen tonight', 'back by 7:15 tonight'],
  ['wait a second', 'wait a second'],
  ['the first time', 'the first time'],
  ['at one point we left', 'at one point we left'],
  ['one two three', 'one two three'],
  ['march ten miles', 'march 10 miles'],
  ['january five twenty twenty four', 'January 5, 2024'],
];

for (const [spoken, written] of SMART) {
  test(`smart_format: "${spoken}" -> "${written}"`, () => assert.equal(fmt(spoken), written));
}

test('smart_format keeps timings: a merged token spans its words', () => {
  const out = smartFormat(timed('pay twenty five dollars now'));
  assert.deepEqual(
    out.map((w) => [w.word, w.start, w.end]),
    [
      ['pay', 0, 0.25],
      ['$25', 0.25, 1],
      ['now', 1, 1.25],
    ],
  );
});

const PUNCT: Array<[string, string]> = [
  ['hello world', 'Hello world.'],
  ['what time is it', 'What time is it?'],
  ['how are you | i am fine', 'How are you? I am fine.'],
  ['is it raining', 'Is it raining?'],
  ['i think so | we should go', 'I think so. We should go.'],
  ["i'm here and i'll stay", "I'm here and I'll stay."],
  ['first , second , third', 'First, second, third.'],
  ['do you know | yes', 'Do you know? Yes.'],
  ['can you hear me', 'Can you hear me?'],
  ['the end', 'The end.'],
  ['which one is it', 'Which one is it?'],
  ['will you come | maybe', 'Will you come? Maybe.'],
  ["i'd say i've seen it", "I'd say I've seen it."],
  ['we think i am right', 'We think I am right.'],
  ['where is it | there | why', 'Where is it? There. Why?'],
  ['see you on friday in june', 'See you on Friday in June.'],
  ['we may march in may', 'We may march in may.'],
  // Issue 20: an auxiliary or question word at the start is not enough.
  [
    'had he married a more amiable woman he might have been made still more respectable',
    'Had he married a more amiable woman he might have been made still more respectable.',
  ],
  ['had you seen it before', 'Had you seen it before?'],
  ['should you need help call us', 'Should you need help call us.'],
  ['should we go now', 'Should we go now?'],
  ['were they late', 'Were they late?'],
  ['were it not for the rain we would have gone', 'Were it not for the rain we would have gone.'],
  ['have a nice day', 'Have a nice day.'],
  ['do not touch the screen', 'Do not touch the screen.'],
  ["don't you see", "Don't you see?"],
  ['what a lovely morning', 'What a lovely morning.'],
  ['is | it', 'Is. It.'],
];
for (const [spoken, written] of PUNCT) {
  test(`punctuate: "${spoken}" -> "${written}"`, () => assert.equal(punctuatedText(timed(spoken)), written));
}

test('punctuate ends a sentence at every utterance end', () => {
  const w = timed('hello there general kenobi');
  assert.equal(punctuatedText(w, new Set([1])), 'Hello there. General kenobi.');
});
