// Whisper log-mel features as Smart Turn v3 is fed them (src/audio/whisper-mel.ts), against a numpy
// computation of the same definition with numpy's own FFT (test/fixtures/smart-turn).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { MEL_BINS, MEL_FRAMES, turnWindow, whisperLogMel } from '../../src/audio/whisper-mel.js';
import { testPython } from '../helpers/sherpa-models.js';
import { repoPath } from '../helpers/root.js';

const REFERENCE = repoPath('test', 'fixtures', 'smart-turn', 'whisper_mel_reference.py');

function reference(audio: Float32Array): Float32Array {
  const out = execFileSync(testPython(), [REFERENCE], {
    input: Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength),
    maxBuffer: 1 << 22,
  });
  return new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
}

/** A voiced-like signal: a falling 140 Hz tone with harmonics, a pause, noise (seeded). */
function signal(seconds: number): Float32Array {
  const a = new Float32Array(Math.round(seconds * 16000));
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  for (let i = 0; i < a.length; i++) {
    const t = i / 16000;
    const f0 = 140 - 20 * t;
    const voiced = t % 1.5 < 1 ? 1 : 0;
    a[i] = voiced * (0.3 * Math.sin(2 * Math.PI * f0 * t) + 0.1 * Math.sin(4 * Math.PI * f0 * t)) + 0.02 * rnd();
  }
  return a;
}

function maxDiff(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}

test('the features of a short clip (zero-padded at the start) match numpy to 1e-3', () => {
  const audio = signal(3.2);
  const ours = whisperLogMel(turnWindow(audio));
  const theirs = reference(audio);
  assert.equal(ours.length, MEL_BINS * MEL_FRAMES);
  assert.equal(theirs.length, MEL_BINS * MEL_FRAMES);
  assert.ok(maxDiff(ours, theirs) < 1e-3, `max difference ${maxDiff(ours, theirs)}`);
  // The padding at the start is at the floor, the speech at the end above it.
  assert.ok(ours[10 * MEL_FRAMES + 5]! < ours[10 * MEL_FRAMES + 790]!);
});

test('a clip longer than 8 s: only its last 8 s count, as numpy computes them', () => {
  const audio = signal(10.5);
  const ours = whisperLogMel(turnWindow(audio));
  assert.ok(maxDiff(ours, reference(audio)) < 1e-3);
  assert.ok(maxDiff(ours, whisperLogMel(turnWindow(audio.subarray(audio.length - 8 * 16000)))) < 1e-6);
});

test('silence gives finite features (the log floor, no NaN)', () => {
  const ours = whisperLogMel(turnWindow(new Float32Array(16000)));
  assert.ok(ours.every((v) => Number.isFinite(v)));
  assert.ok(maxDiff(ours, reference(new Float32Array(16000))) < 1e-3);
});
