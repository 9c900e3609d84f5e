// The offline redactor (src/stt/redact.ts): card numbers by Luhn, SSNs by their rules, number runs,
// profanity from the LDNOOBW list; spoken digits and written ones; linear on long input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { luhn, redactWords, validSsn, type RedactOptions } from '../../src/stt/redact.js';

const words = (s: string) =>
  s.split(' ').map((w, i) => ({ word: w.replace(/[.,]$/, '').toLowerCase(), punctuated: w, start: i, end: i + 0.5, confidence: 0.9 }));
const text = (ws: Array<{ punctuated: string }>) => ws.map((w) => w.punctuated).join(' ');
const opts = (redact: RedactOptions['redact'], profanityFilter = false): RedactOptions => ({ redact, profanityFilter });

test('Luhn and SSN rules', () => {
  assert.ok(luhn('4111111111111111'));
  assert.ok(!luhn('4111111111111112'));
  assert.ok(validSsn('123456789'));
  for (const bad of ['000456789', '666456789', '900456789', '123006789', '123450000', '12345678']) assert.ok(!validSsn(bad), bad);
});

test('pci: a Luhn-valid card number, written or spoken digit by digit, becomes [CREDIT_CARD_n]; an invalid one stays', () => {
  assert.equal(text(redactWords(words('My card is 4111-1111-1111-1111. Thanks'), opts(['pci']))), 'My card is [CREDIT_CARD_1]. Thanks');
  const spoken = 'card four one one one one one one one one one one one one one one one ok';
  const r = redactWords(words(spoken), opts(['pci']));
  assert.equal(text(r), 'card [CREDIT_CARD_1] ok');
  assert.equal(r[1]!.start, 1);
  assert.equal(r[1]!.end, 16.5, 'the replacement spans the run');
  assert.equal(text(redactWords(words('card 4111 1111 1111 1112 ok'), opts(['pci']))), 'card 4111 1111 1111 1112 ok');
});

test('ssn: nine digits that are a valid SSN; numbering goes on across calls', () => {
  const counters = new Map<string, number>();
  assert.equal(text(redactWords(words('mine is 123-45-6789 and'), opts(['ssn']), counters)), 'mine is [SSN_1] and');
  assert.equal(text(redactWords(words('hers one two three four five six seven eight nine'), opts(['ssn']), counters)), 'hers [SSN_2]');
  assert.equal(text(redactWords(words('not 666-45-6789'), opts(['ssn']))), 'not 666-45-6789');
});

test('numbers: every run of numbers, words or digits; "oh" alone is no number; other text untouched', () => {
  assert.equal(
    text(redactWords(words('at nine thirty we meet, room 42. Oh well'), opts(['numbers']))),
    'at [NUMBER_1] we meet, room [NUMBER_2]. Oh well',
  );
  assert.equal(text(redactWords(words('call five five oh one'), opts(['numbers']))), 'call [NUMBER_1]');
  assert.equal(text(redactWords(words('nothing to see'), opts(['numbers', 'pci', 'ssn']))), 'nothing to see');
});

test('pci before numbers: a card in a numbers+pci request is named a card', () => {
  assert.equal(text(redactWords(words('pay 4111111111111111 then 12'), opts(['numbers', 'pci']))), 'pay [CREDIT_CARD_1] then [NUMBER_1]');
});

test('profanity_filter: listed words keep their first letter, punctuation stays; other words are untouched', () => {
  assert.equal(text(redactWords(words('What the shit, Sam.'), opts([], true))), 'What the s***, Sam.');
  assert.equal(text(redactWords(words('a grassy hill'), opts([], true))), 'a grassy hill');
});

test('nothing asked: the words as they were (a copy)', () => {
  const w = words('4111111111111111 shit');
  const r = redactWords(w, opts([]));
  assert.deepEqual(r, w);
  assert.notEqual(r, w);
});

test('hostile: 200,000 words of digits and letters are scanned in linear time', () => {
  const big = Array.from({ length: 200_000 }, (_, i) => ({
    word: i % 7 === 0 ? 'x' : String(i % 10),
    punctuated: '',
    start: i,
    end: i,
    confidence: 1,
  }));
  const t0 = performance.now();
  const r = redactWords(big, opts(['pci', 'ssn', 'numbers'], true));
  assert.ok(r.length < big.length);
  assert.ok(performance.now() - t0 < 5000, 'generous bound: a quadratic scan takes minutes');
  // One run of 200,000 digits (no card, no SSN): one NUMBER.
  const run = Array.from({ length: 200_000 }, () => ({ word: '7', punctuated: '7', start: 0, end: 0 }));
  assert.equal(redactWords(run, opts(['numbers'])).length, 1);
});
