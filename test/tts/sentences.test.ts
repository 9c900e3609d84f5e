import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSentences } from '../../src/tts/sentences.js';

test('sentences split at end punctuation and concatenate back to the input', () => {
  const text = 'Hello there! How are you? I met Dr. Smith at 3.5 km. "Really?" she asked.  Done';
  const s = splitSentences(text);
  assert.equal(s.join(''), text);
  assert.deepEqual(s.map((x) => x.trim()), ['Hello there!', 'How are you?', 'I met Dr. Smith at 3.5 km.', '"Really?"', 'she asked.', 'Done']);
});

test('long sentences are cut at clause boundaries, below 300 characters', () => {
  const clause = 'this clause goes on and on without any end in sight';
  const text = Array.from({ length: 20 }, () => clause).join(', ') + '.';
  const s = splitSentences(text);
  assert.ok(s.length > 1);
  assert.ok(s.every((x) => x.length <= 300));
  assert.equal(s.join(''), text);
});

test('text without punctuation is one sentence; empty text none', () => {
  assert.deepEqual(splitSentences('just words'), ['just words']);
  assert.deepEqual(splitSentences(''), []);
});
