// The finishing chain of the premium model (aura-max): band-limited upsampling to 48 kHz of audio
// that already left its engine through the output stage (src/audio/dsp/level.ts: DC removed, the
// voice's fixed gain to -16 LUFS, the true-peak limiter), then the limiter again at 48 kHz. Until
// issue 29 this chain measured each chunk's loudness and set its own gain per chunk, so two chunks
// of one voice could differ, and a stream's sentences differed from the file's chunks; now every
// model's voices get one fixed gain per voice (src/tts/levels.ts, decision #40).
// The loudness meter (ITU-R BS.1770-4) is written here (two biquads and the gating) because the
// one npm package for it (ebur128-wasm) is little used and brings a WebAssembly module for these
// few lines; a test checks this meter against ffmpeg's ebur128 filter.

import { int16ToFloat32 } from '../../audio/pcm.js';
import { resampleFloat32 } from '../../audio/resample.js';
import { level } from '../../audio/dsp/level.js';

export const STUDIO_RATE = 48_000;

interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

function filter(x: Float32Array, f: Biquad): Float64Array {
  const y = new Float64Array(x.length);
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    const out = f.b0 * v + f.b1 * x1 + f.b2 * x2 - f.a1 * y1 - f.a2 * y2;
    x2 = x1;
    x1 = v;
    y2 = y1;
    y1 = out;
    y[i] = out;
  }
  return y;
}

/** BS.1770's K-weighting at any rate: the high shelf and the high-pass of the standard, by the bilinear transform. */
function kWeighting(rate: number): [Biquad, Biquad] {
  // Stage 1: high shelf, +4 dB above ~1.7 kHz (the head's acoustic effect).
  const G = 3.99984385397;
  const Q = 0.7071752369554193;
  const fc = 1681.9744509555319;
  const A = 10 ** (G / 40);
  let w0 = (2 * Math.PI * fc) / rate;
  let alpha = Math.sin(w0) / (2 * Q);
  let cos = Math.cos(w0);
  const a0s = A + 1 - (A - 1) * cos + 2 * Math.sqrt(A) * alpha;
  const shelf: Biquad = {
    b0: (A * (A + 1 + (A - 1) * cos + 2 * Math.sqrt(A) * alpha)) / a0s,
    b1: (-2 * A * (A - 1 + (A + 1) * cos)) / a0s,
    b2: (A * (A + 1 + (A - 1) * cos - 2 * Math.sqrt(A) * alpha)) / a0s,
    a1: (2 * (A - 1 - (A + 1) * cos)) / a0s,
    a2: (A + 1 - (A - 1) * cos - 2 * Math.sqrt(A) * alpha) / a0s,
  };
  // Stage 2: high-pass at ~38 Hz; the numerator is [1, -2, 1] as in the standard's coefficients.
  w0 = (2 * Math.PI * 38.13547087613982) / rate;
  alpha = Math.sin(w0) / (2 * 0.5003270373253953);
  cos = Math.cos(w0);
  const a0h = 1 + alpha;
  const highpass: Biquad = { b0: 1, b1: -2, b2: 1, a1: (-2 * cos) / a0h, a2: (1 - alpha) / a0h };
  return [shelf, highpass];
}

/** Integrated loudness in LUFS (BS.1770-4: 400 ms blocks every 100 ms, -70 LUFS and -10 LU gates); -Infinity for silence. */
export function integratedLoudness(x: Float32Array, rate: number): number {
  const [shelf, highpass] = kWeighting(rate);
  const k = filter(Float32Array.from(filter(x, shelf)), highpass);
  const block = Math.round(0.4 * rate);
  const step = Math.round(0.1 * rate);
  // Prefix sums of squares make each block's mean square O(1).
  const cum = new Float64Array(k.length + 1);
  for (let i = 0; i < k.length; i++) cum[i + 1] = cum[i]! + k[i]! * k[i]!;
  const powers: number[] = [];
  if (k.length < block) powers.push(k.length ? cum[k.length]! / k.length : 0);
  else for (let s = 0; s + block <= k.length; s += step) powers.push((cum[s + block]! - cum[s]!) / block);
  const lufs = (p: number) => -0.691 + 10 * Math.log10(p);
  const absolute = powers.filter((p) => lufs(p) > -70);
  if (!absolute.length) return -Infinity;
  const relGate = lufs(absolute.reduce((a, b) => a + b, 0) / absolute.length) - 10;
  const gated = absolute.filter((p) => lufs(p) > relGate);
  return lufs(gated.reduce((a, b) => a + b, 0) / gated.length);
}

export interface FinishedAudio {
  samples: Int16Array;
  sampleRate: number;
}

/** Upsampling to 48 kHz, then the limiter alone (the gain was the voice's, before). */
export function studioFinish(samples: Int16Array, rate: number): FinishedAudio {
  const x = int16ToFloat32(samples);
  const up = rate === STUDIO_RATE ? x : resampleFloat32(x, rate, STUDIO_RATE);
  return { samples: level(up, STUDIO_RATE, { gainDb: 0 }), sampleRate: STUDIO_RATE };
}
