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

/** 400 = 5 * 5 * 2 * 2 * 2 * 2: a mixed-radix FFT, about twenty times fewer operations than the plain DFT. */
const RADICES = [5, 5, 2, 2, 2, 2];

/** One pass of the FFT: its radix p, sub-length n, stride s and twiddles [q * p + j] = e^(-2 pi i j q / n). */
interface Stage {
  p: number;
  n: number;
  s: number;
  twRe: Float64Array;
  twIm: Float64Array;
}

let tables: {
  filters: Float32Array[];
  spans: [number, number][];
  window: Float64Array;
  stages: Stage[];
  /** e^(-2 pi i j k / 5), [j * 5 + k]: the radix-5 butterfly. */
  r5Re: Float64Array;
  r5Im: Float64Array;
} | null = null;

function setup(): NonNullable<typeof tables> {
  if (tables) return tables;
  const window = Float64Array.from({ length: N_FFT }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N_FFT));
  const stages: Stage[] = [];
  let n = N_FFT;
  let s = 1;
  for (const p of RADICES) {
    const m = n / p;
    const twRe = new Float64Array(m * p);
    const twIm = new Float64Array(m * p);
    for (let q = 0; q < m; q++) {
      for (let j = 0; j < p; j++) {
        const angle = (2 * Math.PI * ((j * q) % n)) / n;
        twRe[q * p + j] = Math.cos(angle);
        twIm[q * p + j] = -Math.sin(angle);
      }
    }
    stages.push({ p, n, s, twRe, twIm });
    n = m;
    s *= p;
  }
  const r5Re = Float64Array.from({ length: 25 }, (_, i) => Math.cos((2 * Math.PI * ((Math.floor(i / 5) * (i % 5)) % 5)) / 5));
  const r5Im = Float64Array.from({ length: 25 }, (_, i) => -Math.sin((2 * Math.PI * ((Math.floor(i / 5) * (i % 5)) % 5)) / 5));
  const filters = melFilters();
  // Each filter is non-zero over a few bins only.
  const spans = filters.map((f): [number, number] => [f.findIndex((v) => v > 0), f.findLastIndex((v) => v > 0) + 1]);
  return (tables = { filters, spans, window, stages, r5Re, r5Im });
}

/**
 * In-order FFT of N_FFT points (Stockham autosort, decimation in frequency: no bit reversal, no
 * recursion). The result ends in (re, im) or (wr, wi), whichever the last pass wrote: returned.
 */
function fft(re: Float64Array, im: Float64Array, wr: Float64Array, wi: Float64Array): [Float64Array, Float64Array] {
  const { stages, r5Re, r5Im } = tables!;
  let xr = re;
  let xi = im;
  let yr = wr;
  let yi = wi;
  const ar = [0, 0, 0, 0, 0];
  const ai = [0, 0, 0, 0, 0];
  for (const { p, n, s, twRe, twIm } of stages) {
    const m = n / p;
    for (let q = 0; q < m; q++) {
      for (let s0 = 0; s0 < s; s0++) {
        if (p === 2) {
          const x0 = s0 + s * q;
          const x1 = x0 + s * m;
          const br = xr[x0]! - xr[x1]!;
          const bi = xi[x0]! - xi[x1]!;
          const y0 = s0 + s * 2 * q;
          yr[y0] = xr[x0]! + xr[x1]!;
          yi[y0] = xi[x0]! + xi[x1]!;
          const c = twRe[q * 2 + 1]!;
          const d = twIm[q * 2 + 1]!;
          yr[y0 + s] = br * c - bi * d;
          yi[y0 + s] = br * d + bi * c;
          continue;
        }
        for (let k = 0; k < 5; k++) {
          ar[k] = xr[s0 + s * (q + m * k)]!;
          ai[k] = xi[s0 + s * (q + m * k)]!;
        }
        for (let j = 0; j < 5; j++) {
          let sr = 0;
          let si = 0;
          for (let k = 0; k < 5; k++) {
            const c = r5Re[j * 5 + k]!;
            const d = r5Im[j * 5 + k]!;
            sr += ar[k]! * c - ai[k]! * d;
            si += ar[k]! * d + ai[k]! * c;
          }
          const c = twRe[q * 5 + j]!;
          const d = twIm[q * 5 + j]!;
          const y = s0 + s * (5 * q + j);
          yr[y] = sr * c - si * d;
          yi[y] = sr * d + si * c;
        }
      }
    }
    [xr, yr] = [yr, xr];
    [xi, yi] = [yi, xi];
  }
  return [xr, xi];
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
  const a = new Float64Array(N_FFT);
  const b = new Float64Array(N_FFT);
  const workRe = new Float64Array(N_FFT);
  const workIm = new Float64Array(N_FFT);
  const powerA = new Float64Array(BINS);
  const powerB = new Float64Array(BINS);
  let max = -Infinity;
  const melFrame = (power: Float64Array, t: number) => {
    for (let m = 0; m < MEL_BINS; m++) {
      const f = filters[m]!;
      const [from, to] = spans[m]!;
      let e = 0;
      for (let k = from; k < to; k++) e += f[k]! * power[k]!;
      const v = Math.log10(Math.max(e, 1e-10));
      out[m * MEL_FRAMES + t] = v;
      if (v > max) max = v;
    }
  };
  // Two real frames per complex transform (frame t as the real part, t + 1 as the imaginary): their
  // spectra are Z's conjugate-symmetric and antisymmetric halves, for half the FFTs.
  for (let t = 0; t < MEL_FRAMES; t += 2) {
    const at = t * HOP;
    for (let i = 0; i < N_FFT; i++) {
      a[i] = padded[at + i]! * hann[i]!;
      b[i] = padded[at + HOP + i]! * hann[i]!;
    }
    const [specRe, specIm] = fft(a, b, workRe, workIm);
    for (let k = 0; k < BINS; k++) {
      const r = specRe[k]!;
      const i = specIm[k]!;
      const rc = specRe[(N_FFT - k) % N_FFT]!;
      const ic = specIm[(N_FFT - k) % N_FFT]!;
      // A = (Z[k] + conj Z[N-k]) / 2, B = (Z[k] - conj Z[N-k]) / 2i.
      powerA[k] = ((r + rc) ** 2 + (i - ic) ** 2) / 4;
      powerB[k] = ((i + ic) ** 2 + (r - rc) ** 2) / 4;
    }
    melFrame(powerA, t);
    melFrame(powerB, t + 1);
  }
  for (let i = 0; i < out.length; i++) out[i] = (Math.max(out[i]!, max - 8) + 4) / 4;
  return out;
}
