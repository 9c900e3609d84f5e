// Whisper's log-mel features, as Smart Turn v3 (an operator-installed turn model, docs/engines.md)
// is fed them: the last 8 s of 16 kHz audio, zero-padded at the start, normalised to zero mean and
// unit variance, then a 400-point STFT (periodic Hann window, hop 160, centred with reflection),
// power spectrum, 80 Slaney mel filters (0-8 kHz, Slaney area norm), log10 floored at 1e-10, the
// last frame dropped, clamped to 8 below the maximum and scaled as (x + 4) / 4. Written out here
// because the model was trained on exactly these numbers and no npm package computes them; the test
// compares them with a numpy computation of the same definition.

export const MEL_BINS = 80;
export const MEL_FRAMES = 800;
export const MEL_WINDOW_SAMPLES = 8 * 16000;
const N_FFT = 400;
const HOP = 160;
const BINS = N_FFT / 2 + 1;

const hzToMel = (f: number) => (f < 1000 ? (3 * f) / 200 : 15 + (27 * Math.log(f / 1000)) / Math.log(6.4));
const melToHz = (m: number) => (m < 15 ? (200 * m) / 3 : 1000 * Math.exp((Math.log(6.4) * (m - 15)) / 27));

/** [MEL_BINS][BINS] triangular filters, Slaney-normalised (each filter's area is constant). */
function melFilters(): Float32Array[] {
  const fftFreqs = Array.from({ length: BINS }, (_, i) => (i * 8000) / (BINS - 1));
  const top = hzToMel(8000);
  const edges = Array.from({ length: MEL_BINS + 2 }, (_, i) => melToHz((top * i) / (MEL_BINS + 1)));
  return Array.from({ length: MEL_BINS }, (_, m) => {
    const row = new Float32Array(BINS);
    const [lo, mid, hi] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    const norm = 2 / (hi - lo);
    for (let k = 0; k < BINS; k++) {
      const f = fftFreqs[k]!;
      const w = Math.max(0, Math.min((f - lo) / (mid - lo), (hi - f) / (hi - mid)));
      row[k] = w * norm;
    }
    return row;
  });
}

let tables: { filters: Float32Array[]; spans: [number, number][]; window: Float64Array; cos: Float64Array; sin: Float64Array } | null =
  null;

function setup(): NonNullable<typeof tables> {
  if (tables) return tables;
  const window = Float64Array.from({ length: N_FFT }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N_FFT));
  const cos = Float64Array.from({ length: N_FFT }, (_, n) => Math.cos((2 * Math.PI * n) / N_FFT));
  const sin = Float64Array.from({ length: N_FFT }, (_, n) => Math.sin((2 * Math.PI * n) / N_FFT));
  const filters = melFilters();
  // Each filter is non-zero over a few bins only.
  const spans = filters.map((f): [number, number] => [f.findIndex((v) => v > 0), f.findLastIndex((v) => v > 0) + 1]);
  return (tables = { filters, spans, window, cos, sin });
}

/** 400 = 2 * 2 * 2 * 2 * 5 * 5: a mixed-radix FFT, about twenty times fewer operations than the plain DFT. */
const RADICES = [5, 5, 2, 2, 2, 2];
const SCRATCH_RE = RADICES.map((p) => new Float64Array(p));
const SCRATCH_IM = RADICES.map((p) => new Float64Array(p));

/**
 * Decimation-in-time FFT of `n` points of (re, im) read at `at`, `at + step`, ...; `level` picks the
 * radix. Twiddles come from the N_FFT-point tables (`tw` = N_FFT / n).
 */
function fft(
  re: Float64Array,
  im: Float64Array,
  at: number,
  step: number,
  n: number,
  level: number,
  outRe: Float64Array,
  outIm: Float64Array,
  o: number,
): void {
  if (n === 1) {
    outRe[o] = re[at]!;
    outIm[o] = im[at]!;
    return;
  }
  const { cos, sin } = tables!;
  const p = RADICES[level]!;
  const m = n / p;
  // Sub-transforms of the p interleaved sequences, side by side in the output.
  for (let j = 0; j < p; j++) fft(re, im, at + j * step, step * p, m, level + 1, outRe, outIm, o + j * m);
  const tw = N_FFT / n;
  const sr = SCRATCH_RE[level]!;
  const si = SCRATCH_IM[level]!;
  for (let k = 0; k < m; k++) {
    for (let j = 0; j < p; j++) {
      sr[j] = outRe[o + j * m + k]!;
      si[j] = outIm[o + j * m + k]!;
    }
    for (let q = 0; q < p; q++) {
      const kk = k + q * m;
      let accR = 0;
      let accI = 0;
      for (let j = 0; j < p; j++) {
        const idx = ((j * kk) % n) * tw;
        const c = cos[idx]!;
        const s = -sin[idx]!;
        accR += sr[j]! * c - si[j]! * s;
        accI += sr[j]! * s + si[j]! * c;
      }
      outRe[o + kk] = accR;
      outIm[o + kk] = accI;
    }
  }
}

/** The model's input window: the last 8 s of `audio`, zero-padded at the start, normalised. */
export function turnWindow(audio: Float32Array): Float64Array {
  const out = new Float64Array(MEL_WINDOW_SAMPLES);
  const tail = audio.subarray(Math.max(0, audio.length - MEL_WINDOW_SAMPLES));
  out.set(tail, MEL_WINDOW_SAMPLES - tail.length);
  let mean = 0;
  for (const v of out) mean += v;
  mean /= out.length;
  let variance = 0;
  for (const v of out) variance += (v - mean) ** 2;
  variance /= out.length;
  const scale = 1 / Math.sqrt(variance + 1e-7);
  for (let i = 0; i < out.length; i++) out[i] = (out[i]! - mean) * scale;
  return out;
}

/** Log-mel features of a prepared window, [MEL_BINS][MEL_FRAMES] flattened row by row. */
export function whisperLogMel(window: Float64Array): Float32Array {
  const { filters, spans, window: hann } = setup();
  const half = N_FFT / 2;
  // Centred frames: reflection padding of half a window at both ends (numpy's "reflect").
  const n = window.length;
  const padded = new Float64Array(n + N_FFT);
  padded.set(window, half);
  for (let i = 1; i <= half; i++) {
    padded[half - i] = window[i]!;
    padded[half + n - 1 + i] = window[n - 1 - i]!;
  }
  const out = new Float32Array(MEL_BINS * MEL_FRAMES);
  const frame = new Float64Array(N_FFT);
  const zeros = new Float64Array(N_FFT);
  const specRe = new Float64Array(N_FFT);
  const specIm = new Float64Array(N_FFT);
  const power = new Float64Array(BINS);
  let max = -Infinity;
  for (let t = 0; t < MEL_FRAMES; t++) {
    const at = t * HOP;
    for (let i = 0; i < N_FFT; i++) frame[i] = padded[at + i]! * hann[i]!;
    fft(frame, zeros, 0, 1, N_FFT, 0, specRe, specIm, 0);
    for (let k = 0; k < BINS; k++) power[k] = specRe[k]! ** 2 + specIm[k]! ** 2;
    for (let m = 0; m < MEL_BINS; m++) {
      const f = filters[m]!;
      const [from, to] = spans[m]!;
      let e = 0;
      for (let k = from; k < to; k++) e += f[k]! * power[k]!;
      const v = Math.log10(Math.max(e, 1e-10));
      out[m * MEL_FRAMES + t] = v;
      if (v > max) max = v;
    }
  }
  for (let i = 0; i < out.length; i++) out[i] = (Math.max(out[i]!, max - 8) + 4) / 4;
  return out;
}
