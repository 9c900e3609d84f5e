// Pitch shifting in semitones without changing duration or formants: WSOLA time-stretch
// (waveform-similarity overlap-add, which keeps the voice's periods intact) by the pitch factor,
// resampling by its inverse, then the original's LPC envelope laid back over the result (lpc.ts).
// Written here because no maintained npm package does this on raw PCM in Node.

import { float32ToInt16, int16ToFloat32 } from '../pcm.js';
import { resampleFloat32 } from '../resample.js';
import { deEmphasis, preEmphasis, swapEnvelope } from './lpc.js';

/** Stretches duration by `factor` (2 = twice as long) keeping pitch. */
export function wsolaStretch(x: Float32Array, sampleRate: number, factor: number): Float32Array {
  if (Math.abs(factor - 1) < 1e-3 || x.length === 0) return x.slice();
  const frame = Math.round(sampleRate * 0.03);
  const hopOut = Math.round(frame / 2);
  const hopIn = hopOut / factor;
  const tolerance = Math.round(sampleRate * 0.012);
  const window = new Float32Array(frame);
  for (let i = 0; i < frame; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / frame);
  const outLen = Math.ceil(x.length * factor) + frame;
  const out = new Float32Array(outLen);
  const norm = new Float32Array(outLen);
  let prevStart = 0;
  for (let k = 0; ; k++) {
    const outPos = k * hopOut;
    const nominal = Math.round(k * hopIn);
    if (nominal >= x.length || outPos >= outLen - frame) break;
    let best = nominal;
    if (k > 0) {
      // The continuation of the previous frame is what the next frame should resemble. Coarse
      // search every 4th offset, then every offset around the best: ~half the work of a search
      // every 2nd offset, and a finer final alignment. Indices stay in range (no undefined reads,
      // which keep this loop off V8's fast path).
      const target = prevStart + hopOut;
      const span = Math.min(frame, x.length - target);
      const lo = Math.max(0, nominal - tolerance);
      const hi = Math.min(x.length - frame, nominal + tolerance);
      if (span > 0 && hi >= lo) {
        // Scored inline (a closure per frame kept this loop ~4x slower); the same sums in the same order.
        let bestScore = -Infinity;
        for (let s = lo; s <= hi; s += 4) {
          let acc = 0;
          for (let i = 0; i < span; i += 4) acc += x[s + i]! * x[target + i]!;
          if (acc > bestScore) {
            bestScore = acc;
            best = s;
          }
        }
        const coarse = best;
        const fineHi = Math.min(hi, coarse + 3);
        for (let s = Math.max(lo, coarse - 3); s <= fineHi; s++) {
          if (s === coarse) continue;
          let acc = 0;
          for (let i = 0; i < span; i += 4) acc += x[s + i]! * x[target + i]!;
          if (acc > bestScore) {
            bestScore = acc;
            best = s;
          }
        }
      }
    }
    for (let i = 0; i < frame; i++) {
      const v = x[best + i];
      if (v === undefined) break;
      out[outPos + i]! += v * window[i]!;
      norm[outPos + i]! += window[i]!;
    }
    prevStart = best;
  }
  const n = Math.round(x.length * factor);
  const y = new Float32Array(n);
  for (let i = 0; i < n; i++) y[i] = norm[i]! > 1e-3 ? out[i]! / norm[i]! : 0;
  return y;
}

export function pitchShift(samples: Int16Array, sampleRate: number, semitones: number): Int16Array {
  if (Math.abs(semitones) < 0.01 || samples.length === 0) return samples;
  return float32ToInt16(pitchShiftFloat(samples, sampleRate, semitones));
}

/**
 * The shift without the conversion to 16 bits (full scale 1): the restored envelope can put peaks
 * past full scale, which only the output stage (src/audio/dsp/level.ts) may bring back, by limiting
 * instead of clipping.
 */
export function pitchShiftFloat(samples: Int16Array, sampleRate: number, semitones: number): Float64Array {
  const factor = 2 ** (semitones / 12);
  const stretched = wsolaStretch(int16ToFloat32(samples), sampleRate, factor);
  // Playing the stretched audio faster by `factor` restores the duration and raises the pitch.
  const shifted = resampleFloat32(stretched, Math.round(sampleRate * factor), sampleRate);
  // Resampling moved the formants with the pitch (a smaller or larger speaker, much harder to
  // understand); lay the original's spectral envelope back over the shifted pitch.
  return deEmphasis(swapEnvelope(preEmphasis(shifted), preEmphasis(samples, 1 / 32768), sampleRate));
}
