// The append-only Wyoming transcript (decision #48): which words of the live recognizer's
// hypotheses go out as transcript-chunk events, and that the chunks always join into the transcript.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOLD, TranscriptChunks } from '../../src/wyoming/transcript-chunks.js';
import type { LiveWord } from '../../src/stt/live/session-output.js';

/** Words a word per 0.4 s from `from` (punctuated as given). */
function words(text: string, from = 0): LiveWord[] {
  return text.split(' ').map((w, i) => ({
    word: w.toLowerCase().replace(/[.,?]/g, ''),
    punctuated_word: w,
    start: from + i * 0.4,
    end: from + i * 0.4 + 0.3,
    confidence: 0.9,
  }));
}

test('an interim hypothesis alone sends nothing; two that agree send what they agree on, less the last words', () => {
  assert.equal(HOLD, 2);
  const c = new TranscriptChunks();
  assert.equal(c.interim(words('Turn on the kitchen.')), null);
  // Agreed: Turn, on (the last two of each are held back).
  assert.equal(c.interim(words('Turn on the kitchen light.')), 'Turn on');
  assert.equal(c.interim(words('Turn on the kitchen lights please.')), ' the');
  assert.equal(c.final(words('Turn on the kitchen lights please.')), ' kitchen lights please.');
  assert.equal(c.text, 'Turn on the kitchen lights please.');
  assert.equal(c.revisions, 0);
});

test('a word that changes between hypotheses waits; a hypothesis that contradicts what was sent sends nothing', () => {
  const c = new TranscriptChunks();
  c.interim(words('She sell the show.'));
  // "She sells" differs at "sell(s)": only "She" is agreed, and the held words are not.
  assert.equal(c.interim(words('She sells seashells by the.')), 'She');
  assert.equal(c.interim(words('She sells seashells by the seashore.')), ' sells seashells');
  // A hypothesis that no longer begins with what was sent adds nothing.
  assert.equal(c.interim(words('He sells seashells by the seashore today.')), null);
  assert.equal(c.final(words('She sells seashells by the seashore.')), ' by the seashore.');
  assert.equal(c.text, 'She sells seashells by the seashore.');
});

test('a final that disagrees with words already sent: those stand, the final adds the words heard after them', () => {
  const c = new TranscriptChunks();
  c.interim(words('The quick brown fox jumps over the.'));
  assert.equal(c.interim(words('The quick brown fox jumps over the lazy.')), 'The quick brown fox jumps');
  const chunk = c.final(words('The quick brown fox jumped over the lazy dog.'));
  assert.equal(chunk, ' over the lazy dog.');
  assert.equal(c.text, 'The quick brown fox jumps over the lazy dog.');
  assert.equal(c.revisions, 1);
});

test('utterances follow one another with a space; an empty final sends nothing', () => {
  const c = new TranscriptChunks();
  assert.equal(c.final(words('Hello there.')), 'Hello there.');
  assert.equal(c.final([]), null);
  c.interim(words('How are you doing today?', 5));
  assert.equal(c.interim(words('How are you doing today?', 5)), ' How are you');
  assert.equal(c.final(words('How are you doing today?', 5)), ' doing today?');
  assert.equal(c.text, 'Hello there. How are you doing today?');
});
