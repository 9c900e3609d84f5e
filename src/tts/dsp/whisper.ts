// Whisper transform for engines without a whisper voice: LPC analysis of the voice's own audio
// and resynthesis with a noise excitation. The vocal-tract envelope (what makes the words and the
// voice recognizable) is kept; the periodic glottal source (what makes it voiced) is replaced by
// breath noise. Written here because no maintained npm package offers LPC resynthesis.

import { hann, lpcOfFrame, lpcOrder, preEmphasis } from '../../audio/dsp/lpc.js';
import { level as limitTo16Bits } from '../../audio/dsp/level.js';

/** Small deterministic PRNG (mulberry32) so the same input always whispers the same way. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function whisperize(samples: Int16Array, sampleRate: number, opts: { level?: number; seed?: number } = {}): Int16Array {
  const level = opts.level ?? 0.7;
  const frame = Math.round(sampleRate * 0.025);
  const hop = Math.floor(frame / 2);
  const order = lpcOrder(sampleRate);
  const window = hann(frame);
  const out = new Float64Array(samples.length + frame);
  const x = new Float64Array(frame);
  const r = new Float64Array(order + 1);
  const y = new Float64Array(frame);
  const rand = rng(opts.seed ?? 0x5eed);
  const gauss = () => {
    // Box-Muller from two uniforms.
    const u = Math.max(rand(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };

  // Pre-emphasis flattens the spectral tilt so the LPC fit favours the formants.
  const pre = preEmphasis(samples, 1 / 32768);
  for (let start = 0; start < samples.length; start += hop) {
    let energy = 0;
    for (let i = 0; i < frame; i++) energy += (((samples[start + i] ?? 0) / 32768) * window[i]!) ** 2;
    if (energy < 1e-9) continue;
    const a = lpcOfFrame(pre, start, window, order, r, x);
    // Excite the all-pole filter 1/A(z) with noise, then de-emphasize.
    let de = 0;
    let outEnergy = 0;
    for (let i = 0; i < frame; i++) {
      let v = gauss();
      for (let j = 1; j <= order && j <= i; j++) v -= a[j]! * y[i - j]!;
      y[i] = v;
      de = v + 0.95 * de;
      x[i] = de * window[i]!;
      outEnergy += x[i]! ** 2;
    }
    // Match the frame's loudness, so whispered speech keeps the original's dynamics.
    const gain = outEnergy > 0 ? Math.sqrt(energy / outEnergy) : 0;
    for (let i = 0; i < frame; i++) out[start + i] = out[start + i]! + x[i]! * gain;
  }

  // Noise has a higher crest factor than voicing: the true-peak limiter of the output stage
  // (level.ts) instead of clipping at 16 bits.
  const scaled = new Float64Array(samples.length);
  for (let i = 0; i < samples.length; i++) scaled[i] = out[i]! * level;
  return limitTo16Bits(scaled, sampleRate, { gainDb: 0 });
}
