import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSentences } from '../../src/tts/sentences.js';

test('sentences split at end punctuation and concatenate back to the input', () => {
  const text = 'Hello there! How are you? I met Dr. Smith at 3.5 km. "Really?" she asked.  Done';
  const s = splitSentences(text);
  assert.equal(s.join(''), text);
  assert.deepEqual(
    s.map((x) => x.trim()),
    ['Hello there!', 'How are you?', 'I met Dr. Smith at 3.5 km.', '"Really?"', 'she asked.', 'Done'],
  );
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

import { groupIntoSentences } from '../../src/tts/stream-plan.js';
import { parseMarkup } from '../../src/tts/markup.js';

test('stream groups follow sentences across styled runs and carry their characters (a vocalization counts as 10)', () => {
  const p = parseMarkup('Hi there. This is <emphasis>very</emphasis> important! <laugh> Bye<break time="1s"/> now.');
  const groups = groupIntoSentences(p.items);
  assert.equal(groups.length, 3);
  assert.equal(
    groups.reduce((n, g) => n + g.characters, 0),
    [...p.plainText].length + 10,
  );
  assert.deepEqual(
    groups[1]!.items.map((i) => (i.type === 'text' ? i.text : i.type)),
    ['This is ', 'very', ' important! '],
  );
  assert.ok(groups[2]!.items.some((i) => i.type === 'vocal'));
  assert.ok(groups.every((g) => g.items.every((i) => i.type !== 'break')));
});

test('a stream group holds at most 16 items, so tags without sentence ends do not make one huge group', () => {
  const p = parseMarkup('a<laugh/>'.repeat(100));
  const groups = groupIntoSentences(p.items);
  assert.ok(groups.every((g) => g.items.length <= 16));
  assert.equal(
    groups.reduce((n, g) => n + g.items.length, 0),
    200,
  );
  assert.equal(
    groups.reduce((n, g) => n + g.characters, 0),
    100 + 100 * 10,
  );
});

// The regex splitter the scanner replaced (quadratic on runs of dots): an oracle for short inputs.
function oldSplit(text: string): string[] {
  const ABBR = new Set([
    'mr',
    'mrs',
    'ms',
    'dr',
    'prof',
    'sr',
    'jr',
    'st',
    'vs',
    'etc',
    'e.g',
    'i.e',
    'no',
    'fig',
    'inc',
    'ltd',
    'co',
    'mt',
  ]);
  const out: string[] = [];
  let start = 0;
  for (const m of text.matchAll(/([.!?。！？…]+)(["'”’)\]]*)(\s+|$)/g)) {
    const end = m.index + m[0].length;
    if (m[1] === '.') {
      const lastWord = /([A-Za-z.]+)$/.exec(text.slice(start, m.index))?.[1]?.toLowerCase() ?? '';
      if ((ABBR.has(lastWord) || /^[a-z]$/i.test(lastWord)) && end < text.length) continue;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) out.push(text.slice(start));
  return out.filter((s) => s.length > 0);
}

test('the sentence scanner splits exactly as the old regex did (10,000 random short texts)', () => {
  const pieces = ['.', '!', '?', '。', '…', '"', '”', ')', ' ', '\n', '\u00a0', 'Dr', 'e.g', 'J', 'word', '3', 'x'];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let n = 0; n < 10000; n++) {
    let text = '';
    const len = 1 + Math.floor(rand() * 16);
    for (let i = 0; i < len; i++) text += pieces[Math.floor(rand() * pieces.length)];
    assert.deepEqual(splitSentences(text), oldSplit(text), JSON.stringify(text));
  }
});
