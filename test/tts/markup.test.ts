import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findTags, parseMarkup, splitAtBreaks, withoutBreaks } from '../../src/tts/markup.js';

const invalid = (text: string, re?: RegExp) =>
  assert.throws(
    () => parseMarkup(text),
    (err: any) => err.code === 'INVALID_MARKUP' && err.status === 400 && (!re || re.test(err.message)),
    text,
  );

test('plain text passes through, < and > that form no tag are text', () => {
  const p = parseMarkup('Is 3 < 5 and 7 > 2? Yes -> ok <3');
  assert.deepEqual(p.items, [{ type: 'text', text: 'Is 3 < 5 and 7 > 2? Yes -> ok <3', whisper: false, emphasis: false }]);
  assert.equal(p.hasBreaks, false);
  assert.equal(p.hasExpressions, false);
  assert.equal(p.plainText, 'Is 3 < 5 and 7 > 2? Yes -> ok <3');
});

test('break tags in seconds and milliseconds, decimals, quotes, clamped to 20 s', () => {
  const p = parseMarkup('One.<break time="1.5s"/>Two.<break time=\'250ms\' />Three.<break time="45s"/>Four.<break time=".5s"/>');
  const breaks = p.items.filter((i) => i.type === 'break');
  assert.deepEqual(
    breaks.map((b) => (b as any).seconds),
    [1.5, 0.25, 20, 0.5],
  );
  assert.equal((breaks[2] as any).requested, 45);
  assert.equal(p.plainText, 'One.Two.Three.Four.');
  const { segments, silences } = splitAtBreaks(p.items);
  assert.equal(segments.length, 5);
  assert.deepEqual(silences, [1.5, 0.25, 20, 0.5]);
  assert.equal(segments[4]!.length, 0);
  assert.equal(withoutBreaks(p.items).length, 1);
});

test('expression tags: vocalizations and whisper/emphasis spans, nested', () => {
  const p = parseMarkup(
    'Well <laugh> that is <emphasis>really</emphasis> funny. <whisper>Do not <emphasis>tell</emphasis> <sigh></whisper> Bye <cough/>',
  );
  assert.equal(p.hasExpressions, true);
  assert.deepEqual(p.items, [
    { type: 'text', text: 'Well ', whisper: false, emphasis: false },
    { type: 'vocal', kind: 'laugh', whisper: false },
    { type: 'text', text: ' that is ', whisper: false, emphasis: false },
    { type: 'text', text: 'really', whisper: false, emphasis: true },
    { type: 'text', text: ' funny. ', whisper: false, emphasis: false },
    { type: 'text', text: 'Do not ', whisper: true, emphasis: false },
    { type: 'text', text: 'tell', whisper: true, emphasis: true },
    { type: 'text', text: ' ', whisper: true, emphasis: false },
    { type: 'vocal', kind: 'sigh', whisper: true },
    { type: 'text', text: ' Bye ', whisper: false, emphasis: false },
    { type: 'vocal', kind: 'cough', whisper: false },
  ]);
  assert.equal(p.plainText, 'Well  that is really funny. Do not tell  Bye ');
});

test('tag names are case-insensitive', () => {
  const p = parseMarkup('<WHISPER>hi</Whisper><Break time="1S"/>');
  assert.equal(p.items.length, 2);
});

test('malformed markup is INVALID_MARKUP naming the tag', () => {
  invalid('Hello <break time="soon"/>', /break time="soon"/);
  invalid('Hello <break time="-1s"/>');
  invalid('Hello <break time="1h"/>');
  invalid('Hello <break/>');
  invalid('Hello <break duration="1s"/>');
  invalid('Hello </break>');
  invalid('<whisper>never closed', /never closed/);
  invalid('stray </emphasis>');
  invalid('<whisper><emphasis>crossed</whisper></emphasis>');
  invalid('<whisper>twice <whisper>open</whisper></whisper>');
  invalid('Hi <shout>there</shout>', /<shout>/);
  invalid('x<y>z');
  invalid('<laugh>ha</laugh>');
  invalid('<sigh loud="yes">');
  invalid('<emphasis/>');
});

// The tag regex the scanner replaced (cubic on "<a" + spaces): an oracle for short inputs only.
const OLD_TAG = /<(\/?)([A-Za-z][A-Za-z0-9_-]*)((?:\s+[^<>]*?)?)\s*(\/?)>/g;

test('the tag scanner finds exactly the tags the old regex found (10,000 random short texts)', () => {
  const pieces = [
    '<',
    '>',
    '/',
    ' ',
    '\t',
    '\u00a0',
    '\u3000',
    'break',
    'laugh',
    'Whisper',
    'x',
    'time',
    '=',
    '"1s"',
    "'2s'",
    'a',
    '3',
    '-',
    '_',
    '\n',
    '<<',
    '/>',
  ];
  let seed = 19;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let n = 0; n < 10000; n++) {
    let text = '';
    const len = 1 + Math.floor(rand() * 14);
    for (let i = 0; i < len; i++) text += pieces[Math.floor(rand() * pieces.length)];
    const expected = [...text.matchAll(OLD_TAG)].map((m) => ({
      start: m.index,
      text: m[0],
      closing: m[1] === '/',
      name: m[2],
      attrs: m[3],
      selfClosing: m[4] === '/',
      end: m.index + m[0].length,
    }));
    assert.deepEqual([...findTags(text)], expected, JSON.stringify(text));
  }
});
