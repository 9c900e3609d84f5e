// The output stage (src/audio/dsp/level.ts): the fixed gain is applied as asked, nothing comes out
// above the ceiling (true peak, and checked with ffmpeg's own true-peak meter), and the result does
// not depend on how the input was cut into pieces (the stream and the file agree).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Leveler, LIMIT_DBTP, level, truePeak, truePeakInt16Db, type LevelOptions } from '../../src/audio/dsp/level.js';
import { encodeWav } from '../../src/audio/wav.js';
import { concatInt16 } from '../../src/audio/pcm.js';

const RATE = 22_050;

/** A voiced-like signal: harmonics of 120-260 Hz with syllable-like bursts, peaks far over full scale. */
function loudSpeechLike(seconds: number, amp: number): Float32Array {
  const x = new Float32Array(Math.round(seconds * RATE));
  let phase = 0;
  for (let i = 0; i < x.length; i++) {
    const t = i / RATE;
    const f0 = 120 + 140 * (0.5 + 0.5 * Math.sin(2 * Math.PI * 0.7 * t));
    phase += (2 * Math.PI * f0) / RATE;
    let v = 0;
    for (let h = 1; h <= 12; h++) v += Math.sin(h * phase + h * h) / h;
    const env = Math.max(0, Math.sin(2 * Math.PI * 3 * t)) ** 0.5;
    x[i] = (amp * v * env) / 2;
  }
  return x;
}

test('a whole signal: no sample past the limit, true peak under it, quiet parts keep the fixed gain', () => {
  const x = loudSpeechLike(2, 3);
  const y = level(x, RATE, { gainDb: 0 });
  assert.equal(y.length, x.length);
  assert.ok(truePeakInt16Db(y) <= LIMIT_DBTP + 0.05, `true peak ${truePeakInt16Db(y)}`);
  // A quiet signal only gets the gain: -20 dB input, +6 dB gain.
  const quiet = loudSpeechLike(1, 0.1);
  const q = level(quiet, RATE, { gainDb: 6 });
  const g = 10 ** (6 / 20);
  let maxErr = 0;
  for (let i = 0; i < q.length; i++) maxErr = Math.max(maxErr, Math.abs(q[i]! / 32768 - quiet[i]! * g));
  assert.ok(truePeak(quiet) * g < 10 ** (LIMIT_DBTP / 20));
  assert.ok(maxErr < 2 / 32768, `max error ${maxErr}`);
});

/** The output stage fed `x` in pieces of `size` samples: everything it gave back, joined. */
function levelInPieces(x: Float32Array, opts: LevelOptions, size: number): Int16Array {
  const l = new Leveler(RATE, opts);
  const parts: Int16Array[] = [];
  for (let at = 0; at < x.length; at += size) parts.push(l.push(x.subarray(at, at + size)));
  parts.push(l.end());
  return concatInt16(parts);
}

test('pieces of any size give the same samples as the whole', () => {
  const x = loudSpeechLike(1.5, 2.5);
  const whole = level(x, RATE, { gainDb: 3, dc: true });
  for (const size of [1, 7, 100, 2205, 5000]) assert.deepEqual(levelInPieces(x, { gainDb: 3, dc: true }, size), whole, `pieces of ${size}`);
});

test('skipping the stretches with no loud sample near gives the samples of interpolating every one (decision #104)', () => {
  // Loud bursts (limited), quiet speech (gain only), silence, single spikes next to silence, and
  // a level that sits just around the skip threshold, whole and in pieces, with and without DC.
  const spikes = new Float32Array(RATE);
  for (let i = 500; i < spikes.length; i += 997) spikes[i] = i % 2 ? 1.7 : -0.6;
  const signals: Array<[string, Float32Array]> = [
    ['loud', loudSpeechLike(1, 3)],
    ['quiet', loudSpeechLike(1, 0.2)],
    ['near the threshold', loudSpeechLike(1, 0.75)],
    ['spikes in silence', spikes],
    ['bursts and silence', Float32Array.from([...loudSpeechLike(0.4, 2.5), ...new Float32Array(3000), ...loudSpeechLike(0.4, 0.4)])],
  ];
  let limited = 0;
  for (const [name, x] of signals)
    for (const opts of [{ gainDb: 0 }, { gainDb: 9, dc: true }, { gainDb: -6 }]) {
      const reference = level(x, RATE, { ...opts, exhaustive: true });
      assert.deepEqual(level(x, RATE, opts), reference, `${name} ${JSON.stringify(opts)}`);
      assert.deepEqual(levelInPieces(x, opts, 333), reference, `${name} ${JSON.stringify(opts)} in pieces`);
      // Without the DC filter, anything but the plain gain is the limiter's work.
      if (!('dc' in opts) && reference.some((v, i) => v !== Math.round(x[i]! * 10 ** (opts.gainDb / 20) * 32768))) limited++;
    }
  assert.ok(limited >= 3, `${limited} signals limited: the comparison covers the limiter, not only the gain`);
});

test('a peak at the very first sample is held too', () => {
  const x = new Float32Array(1000);
  x[0] = 1.9;
  x[1] = -1.9;
  const y = level(x, RATE, { gainDb: 0 });
  assert.ok(truePeakInt16Db(y) <= LIMIT_DBTP + 0.05);
});

test("ffmpeg's true-peak meter agrees: the limited signal is under -1 dBTP", () => {
  const y = level(loudSpeechLike(2, 4), RATE, { gainDb: 0 });
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-level-'));
  try {
    const file = path.join(dir, 'y.wav');
    writeFileSync(file, encodeWav(y, RATE));
    const r = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', file, '-af', 'ebur128=peak=true', '-f', 'null', '-'], {
      encoding: 'utf8',
    });
    const m = /True peak:\s*\n\s*Peak:\s*(-?[\d.]+) dBFS/.exec(r.stderr);
    assert.ok(m, r.stderr.slice(-500));
    assert.ok(Number(m[1]) <= -1, `ffmpeg true peak ${m[1]}`);
    assert.ok(Math.abs(Number(m[1]) - truePeakInt16Db(y)) < 0.3, `ffmpeg ${m[1]} vs ours ${truePeakInt16Db(y)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
