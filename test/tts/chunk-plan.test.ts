// How a long text is cut for parallel synthesis (src/tts/speak-items.ts, decision #105): sentence-
// aligned chunks of about the engine's size, the last `lanes` of them cut into single sentences
// when there are more than twice as many chunks as lanes, so the lanes end closer together. The
// pieces always make up the text, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkPlan, chunkText } from '../../src/tts/speak-items.js';
import { splitSentences } from '../../src/tts/sentences.js';

const SENTENCE = 'The committee reviewed the proposal carefully and agreed to continue the project next quarter. ';

test('a long text: the whole chunks first, then the last two chunks one sentence at a time', () => {
  const text = SENTENCE.repeat(32);
  const whole = chunkText(text, 300);
  const plan = chunkPlan(text, 300, 2);
  assert.equal(plan.join(''), text);
  assert.deepEqual(plan.slice(0, whole.length - 2), whole.slice(0, -2));
  const tail = plan.slice(whole.length - 2);
  assert.deepEqual(
    tail,
    whole.slice(-2).flatMap((c) => splitSentences(c)),
  );
  assert.ok(tail.length > 2 && tail.every((p) => splitSentences(p).length === 1), `${tail.length} single sentences`);
});

test('no more than twice as many chunks as lanes, or one lane: the chunks as they are', () => {
  for (const [repeat, lanes] of [
    [12, 2],
    [32, 1],
    [1, 2],
  ] as const) {
    const text = SENTENCE.repeat(repeat);
    assert.deepEqual(chunkPlan(text, 300, lanes), chunkText(text, 300), `${repeat} sentences, ${lanes} lanes`);
  }
});
