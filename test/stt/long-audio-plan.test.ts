// The planner and the joiner of long recordings (src/stt/long-audio/): where a recording is cut,
// and how the pieces' results come back onto one timeline. Pure functions on VAD frame flags and
// recognition results; the whole path on real audio and the real recognizer is in
// long-audio.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HARD_OVERLAP_SECONDS, PAUSE_OVERLAP_SECONDS, planPieces, type Piece } from '../../src/stt/long-audio/plan.js';
import { joinPieces } from '../../src/stt/long-audio/join.js';
import type { RecognitionResult } from '../../src/engines/engine.js';

const RATE = 16000;
const FRAME = 320;
const opts = { sampleRate: RATE, frameSamples: FRAME, pieceSeconds: 30 };

/** Frame flags for `seconds` of audio: speech, except in the given pauses ([start, end] seconds). */
function flags(seconds: number, pauses: Array<[number, number]>): Uint8Array {
  const f = new Uint8Array(Math.floor((seconds * RATE) / FRAME)).fill(1);
  for (const [a, b] of pauses) f.fill(0, Math.round((a * RATE) / FRAME), Math.round((b * RATE) / FRAME));
  return f;
}

function covers(pieces: Piece[], total: number): void {
  assert.equal(pieces[0]!.start, 0);
  assert.equal(pieces.at(-1)!.end, total);
  for (let i = 1; i < pieces.length; i++) assert.equal(pieces[i]!.start, pieces[i - 1]!.end, 'no gap, no overlap of owned ranges');
  for (const p of pieces)
    assert.ok(
      p.decodeStart <= p.start && p.start < p.end && p.end <= p.decodeEnd && p.decodeStart >= 0 && p.decodeEnd <= total,
      JSON.stringify(p),
    );
}

describe('planPieces', () => {
  test('a recording within one and a half pieces stays whole', () => {
    const total = 45 * RATE;
    assert.deepEqual(planPieces(flags(45, [[20, 21]]), total, opts), [{ start: 0, end: total, decodeStart: 0, decodeEnd: total }]);
  });

  test('cuts in the middle of pauses, preferring a long pause to a short one nearer the target', () => {
    const total = 100 * RATE;
    // Around the first target (30 s): a 0.3 s pause at 30 s and a 1.2 s pause at 34 s.
    const pieces = planPieces(
      flags(100, [
        [29.85, 30.15],
        [33.4, 34.6],
        [61, 62],
        [75, 75.4],
      ]),
      total,
      opts,
    );
    covers(pieces, total);
    assert.equal(pieces[0]!.end / RATE, 34, 'the long pause wins');
    assert.equal(pieces[1]!.end / RATE, 61.5);
    for (const p of pieces.slice(1)) assert.equal((p.start - p.decodeStart) / RATE, PAUSE_OVERLAP_SECONDS);
    for (const p of pieces.slice(0, -1)) assert.equal((p.decodeEnd - p.end) / RATE, PAUSE_OVERLAP_SECONDS);
  });

  test('a pause shorter than 0.2 s is not a place to cut; continuous speech is cut hard with a wider overlap', () => {
    const total = 55 * RATE;
    const pieces = planPieces(flags(55, [[30, 30.1]]), total, opts);
    covers(pieces, total);
    assert.equal(pieces.length, 2);
    assert.equal(pieces[0]!.end / RATE, 27.5, 'halves near the end rather than a stub');
    assert.equal((pieces[0]!.decodeEnd - pieces[0]!.end) / RATE, HARD_OVERLAP_SECONDS);
    assert.equal((pieces[1]!.start - pieces[1]!.decodeStart) / RATE, HARD_OVERLAP_SECONDS);
  });

  test('pieces stay between half and one and a half times the target, over ten minutes of evenly spaced pauses', () => {
    const pauses: Array<[number, number]> = [];
    for (let s = 4; s < 600; s += 4.3) pauses.push([s, s + 0.4]);
    const total = 600 * RATE;
    const pieces = planPieces(flags(600, pauses), total, opts);
    covers(pieces, total);
    for (const p of pieces.slice(0, -1)) {
      const len = (p.end - p.start) / RATE;
      assert.ok(len >= 15 && len <= 45, `piece of ${len} s`);
      assert.ok(
        pauses.some(([a, b]) => p.end / RATE > a && p.end / RATE < b),
        `cut at ${p.end / RATE} s is in a pause`,
      );
    }
    assert.ok(pieces.length >= 14 && pieces.length <= 40, `${pieces.length} pieces`);
  });
});

describe('joinPieces', () => {
  const w = (word: string, start: number, end: number) => ({ word, start, end, confidence: 0.9 });
  const result = (words: Array<ReturnType<typeof w>>, language?: string): RecognitionResult => ({
    utterances: words.length ? [{ start: words[0]!.start, end: words.at(-1)!.end, words }] : [],
    duration: 0,
    engine: 'test-engine',
    ...(language ? { language } : {}),
  });

  test('times move by where each piece was decoded from; a word in the overlap comes from the piece owning its middle', () => {
    const pieces: Piece[] = [
      { start: 0, end: 10 * RATE, decodeStart: 0, decodeEnd: 11.5 * RATE },
      { start: 10 * RATE, end: 20 * RATE, decodeStart: 8.5 * RATE, decodeEnd: 20 * RATE },
    ];
    const joined = joinPieces(
      pieces,
      [
        result([w('one', 1, 2), w('seam', 9.6, 10.2), w('next', 10.6, 11.2)], 'en'),
        // Piece 2 starts decoding at 8.5 s: 'seam' at 1.1-1.7 is 9.6-10.2 on the recording (middle 9.9: piece 1's).
        result([w('seam', 1.1, 1.7), w('next', 2.1, 2.7), w('two', 5, 6)], 'de'),
      ],
      RATE,
      20 * RATE,
    );
    const words = joined.utterances.flatMap((u) => u.words);
    assert.deepEqual(
      words.map((x) => [x.word, x.start, x.end]),
      [
        ['one', 1, 2],
        ['seam', 9.6, 10.2],
        ['next', 10.6, 11.2],
        ['two', 13.5, 14.5],
      ],
    );
    assert.equal(joined.duration, 20);
    assert.equal(joined.engine, 'test-engine');
    assert.equal(joined.language, 'en', 'a tie of audio seconds goes to the first piece');
  });

  test('a seam word placed earlier by the next piece never runs time backwards; empty pieces leave no utterance', () => {
    const pieces: Piece[] = [
      { start: 0, end: 10 * RATE, decodeStart: 0, decodeEnd: 11.5 * RATE },
      { start: 10 * RATE, end: 20 * RATE, decodeStart: 8.5 * RATE, decodeEnd: 20 * RATE },
      { start: 20 * RATE, end: 30 * RATE, decodeStart: 20 * RATE, decodeEnd: 30 * RATE },
    ];
    const joined = joinPieces(pieces, [result([w('a', 9.2, 9.98)]), result([w('b', 1.45, 2.0)]), result([])], RATE, 30 * RATE);
    const words = joined.utterances.flatMap((u) => u.words);
    assert.deepEqual(
      words.map((x) => [x.word, x.start, x.end]),
      [
        ['a', 9.2, 9.98],
        ['b', 9.98, 10.5],
      ],
    );
    assert.equal(joined.utterances.length, 2);
  });
});
