// The finishing chain of the premium model (aura-max), as a studio would master speech: the DC
// offset removed, band-limited upsampling to 48 kHz, then the loudness set to -16 LUFS (integrated,
// ITU-R BS.1770-4, the usual target for spoken word on streaming and podcast platforms) unless that
// would push a sample peak above -1 dBFS, in which case the gain stops at the peak ceiling.
// The loudness meter is written here (two biquads and the gating of BS.1770) because the one npm
// package for it (ebur128-wasm) is little used and brings a WebAssembly module for these few
// lines; a test checks this meter against ffmpeg's ebur128 filter.

import { float32ToInt16, int16ToFloat32 } from '../../audio/pcm.js';
import { resampleFloat32 } from '../../audio/resample.js';

export const STUDIO_RATE = 48_000;
export const TARGET_LUFS = -16;
export const PEAK_CEILING_DBFS = -1;
/** Corner of the DC-blocking high-pass (below any voice's fundamental). */
const DC_CORNER_HZ = 20;

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

/** Removes a constant offset, then slow drift (a one-pole high-pass at DC_CORNER_HZ). */
export function removeDc(x: Float32Array, rate: number): Float32Array {
  let mean = 0;
  for (let i = 0; i < x.length; i++) mean += x[i]!;
  mean = x.length ? mean / x.length : 0;
  const r = Math.exp((-2 * Math.PI * DC_CORNER_HZ) / rate);
  const y = new Float32Array(x.length);
  let prevX = 0;
  let prevY = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]! - mean;
    prevY = v - prevX + r * prevY;
    prevX = v;
    y[i] = prevY;
  }
  return y;
}

export interface FinishedAudio {
  samples: Int16Array;
  sampleRate: number;
  /** Loudness before and after, LUFS; the gain applied, dB. */
  loudnessIn: number;
  loudnessOut: number;
  gainDb: number;
}

/** The whole chain: DC removal, upsampling to 48 kHz, loudness to the target under the peak ceiling. */
export function studioFinish(samples: Int16Array, rate: number): FinishedAudio {
  const clean = removeDc(int16ToFloat32(samples), rate);
  const up = rate === STUDIO_RATE ? clean : resampleFloat32(clean, rate, STUDIO_RATE);
  const loudnessIn = integratedLoudness(up, STUDIO_RATE);
  let peak = 0;
  for (let i = 0; i < up.length; i++) peak = Math.max(peak, Math.abs(up[i]!));
  let gainDb = 0;
  if (Number.isFinite(loudnessIn) && peak > 0) {
    const ceilingDb = PEAK_CEILING_DBFS - 20 * Math.log10(peak);
    gainDb = Math.min(TARGET_LUFS - loudnessIn, ceilingDb);
  }
  const g = 10 ** (gainDb / 20);
  for (let i = 0; i < up.length; i++) up[i] = up[i]! * g;
  return { samples: float32ToInt16(up), sampleRate: STUDIO_RATE, loudnessIn, loudnessOut: loudnessIn + gainDb, gainDb };
}
