// The DER scorer of bench/der.ts on hand-made cases: each error kind, the collar, the mapping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { der } from '../../bench/der.js';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 0.02, `${a} vs ${b}`);

test('a perfect hypothesis under other labels scores 0; the collar leaves 0.25 s each side of a boundary unscored', () => {
  const ref = [
    { start: 0, end: 4, speaker: 'x' },
    { start: 5, end: 9, speaker: 'y' },
  ];
  const r = der(ref, [
    { start: 0, end: 4, speaker: 'B' },
    { start: 5, end: 9, speaker: 'A' },
  ]);
  close(r.der, 0);
  close(r.total, 2 * (4 - 0.5));
  // Boundaries off by 0.2 s fall inside the collar.
  close(
    der(ref, [
      { start: 0.2, end: 3.8, speaker: 'A' },
      { start: 5.2, end: 8.8, speaker: 'B' },
    ]).der,
    0,
  );
});

test('missed speech, false alarm and confusion each counted over the reference time', () => {
  const ref = [
    { start: 0, end: 4, speaker: 'x' },
    { start: 5, end: 9, speaker: 'y' },
  ];
  const missed = der(ref, [{ start: 0, end: 4, speaker: 'A' }]);
  close(missed.missed, 3.5);
  close(missed.der, 0.5);
  const fa = der(ref, [...ref, { start: 10, end: 12, speaker: 'x' }]);
  close(fa.falseAlarm, 2);
  // One speaker found for both: the second's time is confusion.
  const merged = der(ref, [
    { start: 0, end: 4, speaker: 'A' },
    { start: 5, end: 9, speaker: 'A' },
  ]);
  close(merged.confusion, 3.5);
  close(merged.der, 0.5);
});

test('overlap counts per speaker: one found speaker over two talking misses the other', () => {
  const ref = [
    { start: 0, end: 6, speaker: 'x' },
    { start: 2, end: 4, speaker: 'y' },
  ];
  const r = der(ref, [{ start: 0, end: 6, speaker: 'A' }]);
  // Scored: x 0-6 less collars at 0, 2, 4, 6; y 2-4 less its collars.
  close(r.missed, 1.5);
  close(r.confusion, 0);
});
