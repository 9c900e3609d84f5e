// Linear prediction (LPC): the all-pole model of a frame's spectral envelope, i.e. of the vocal
// tract's formants. Used by the whisper transform (a new excitation under the voice's envelope) and
// by the pitch shift (the voice's own envelope over the shifted excitation). Written here because
// no maintained npm package offers LPC analysis and resynthesis.

/** Levinson-Durbin: LPC coefficients a[1..p] (a[0] = 1) from autocorrelation r[0..p]. */
function levinson(r: Float64Array, p: number): Float64Array {
  const a = new Float64Array(p + 1);
  a[0] = 1;
  let err = r[0]!;
  if (err <= 0) return a;
  const tmp = new Float64Array(p + 1);
  for (let i = 1; i <= p; i++) {
    let acc = r[i]!;
    for (let j = 1; j < i; j++) acc += a[j]! * r[i - j]!;
    const k = -acc / err;
    tmp.set(a);
    for (let j = 1; j < i; j++) a[j] = tmp[j]! + k * tmp[i - j]!;
    a[i] = k;
    err *= 1 - k * k;
    if (err <= 1e-12) break;
  }
  return a;
}

/**
 * LPC coefficients of x[start..start+window.length) under `window` (samples outside x count as 0),
 * with a little white-noise correction so silent or pure-tone frames stay stable.
 */
export function lpcOfFrame(
  x: Float64Array | Float32Array,
  start: number,
  window: Float64Array,
  order: number,
  r = new Float64Array(order + 1),
  w = new Float64Array(window.length),
): Float64Array {
  const n = window.length;
  // No read past the end of x (an out-of-bounds read takes V8 off its fast path for the whole loop).
  const inside = Math.max(0, Math.min(n, x.length - start));
  for (let i = 0; i < inside; i++) w[i] = x[start + i]! * window[i]!;
  for (let i = inside; i < n; i++) w[i] = 0;
  for (let k = 0; k <= order; k++) {
    let acc = 0;
    for (let i = k; i < n; i++) acc += w[i]! * w[i - k]!;
    r[k] = acc;
  }
  r[0] = r[0]! * (1 + 1e-9) + 1e-12;
  return levinson(r, order);
}

/** A periodic Hann window: at 50% overlap the windows sum to exactly 1. */
export function hann(n: number): Float64Array {
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  return w;
}

/** The LPC order for a sample rate: about one pole pair per kHz, plus two. */
export function lpcOrder(sampleRate: number): number {
  return Math.min(32, Math.round(2 + sampleRate / 1000));
}

/** First-order pre-emphasis (flattens the spectral tilt, so LPC fits the formants). */
export function preEmphasis(x: Int16Array | Float32Array, scale = 1, coef = 0.95): Float64Array {
  const y = new Float64Array(x.length);
  let prev = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]! * scale;
    y[i] = v - coef * prev;
    prev = v;
  }
  return y;
}

/** The inverse of preEmphasis. */
export function deEmphasis(x: Float64Array, coef = 0.95): Float64Array {
  const y = new Float64Array(x.length);
  let prev = 0;
  for (let i = 0; i < x.length; i++) {
    prev = x[i]! + coef * prev;
    y[i] = prev;
  }
  return y;
}

/**
 * The spectral envelope of `envelopeOf` laid over the fine structure (pitch, voicing) of `source`,
 * frame by frame: `source` is whitened by its own LPC filter and re-coloured by the LPC filter of
 * the same frame of `envelopeOf`, at `source`'s loudness. Both signals must be time-aligned and
 * pre-emphasized; the result is too (de-emphasize it).
 */
export function swapEnvelope(source: Float64Array, envelopeOf: Float64Array, sampleRate: number): Float64Array {
  // An even frame of about 25 ms, so the hop (half of it) is a whole number of samples.
  const hop = Math.round(sampleRate * 0.0125);
  const frame = 2 * hop;
  const order = lpcOrder(sampleRate);
  const window = hann(frame);
  // The re-colouring filter starts from rest this many samples before each frame, so its start-up
  // transient has died down before the frame's first sample.
  const warm = 4 * order;
  const out = new Float64Array(source.length);
  const r = new Float64Array(order + 1);
  const scratch = new Float64Array(frame);
  const y = new Float64Array(frame + warm);
  // The source with `pad` zeros in front and a frame of zeros behind: the filters below read back
  // `warm + order` samples and a frame ahead without a bounds check per tap.
  const pad = warm + order;
  const src = new Float64Array(pad + source.length + frame);
  src.set(source, pad);
  for (let start = 0; start < source.length; start += hop) {
    let energy = 0;
    for (let i = 0; i < frame; i++) energy += (src[pad + start + i]! * window[i]!) ** 2;
    if (energy < 1e-10) continue;
    const aSource = lpcOfFrame(source, start, window, order, r, scratch);
    const aTarget = lpcOfFrame(envelopeOf, start, window, order, r, scratch);
    for (let i = 0; i < frame + warm; i++) {
      const n = pad + start - warm + i;
      // Residual of the source under its own envelope (FIR: needs only past source samples) ...
      let e = src[n]!;
      for (let j = 1; j <= order; j++) e += aSource[j]! * src[n - j]!;
      // ... through the target's all-pole filter.
      let v = e;
      const taps = i < order ? i : order;
      for (let j = 1; j <= taps; j++) v -= aTarget[j]! * y[i - j]!;
      y[i] = v;
    }
    let outEnergy = 0;
    for (let i = 0; i < frame; i++) outEnergy += (y[warm + i]! * window[i]!) ** 2;
    const gain = outEnergy > 0 ? Math.sqrt(energy / outEnergy) : 0;
    const end = Math.min(frame, out.length - start);
    for (let i = 0; i < end; i++) out[start + i] = out[start + i]! + y[warm + i]! * window[i]! * gain;
  }
  return out;
}
