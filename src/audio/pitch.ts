// A small pitch (F0) tracker for the turn layer's prosody cue (src/stt/live/turns.ts): whether the
// voice fell at the end of the words before a pause, as a finished statement's does. Normalized
// autocorrelation on 40 ms windows of the audio taken to 8 kHz, one value per 20 ms frame: about
// 1 ms per second of voice (bench/turns.ts), silence near nothing: cheap enough to run beside the
// VAD on every stream with turns.

const RATE = 16000;
const FRAME = 320;
/** The analysis reads 8 kHz: pairs of samples averaged (a crude low-pass, enough for 70-400 Hz). */
const DRATE = RATE / 2;
const WIN = 320;
const MIN_LAG = Math.floor(DRATE / 400);
const MAX_LAG = Math.ceil(DRATE / 70);
/** A frame is voiced when its best normalized correlation reaches this. */
const VOICED = 0.6;
/** And it is not near silence (RMS on the 16-bit scale; about -50 dBFS). */
const MIN_RMS = 100;

export interface PitchFrame {
  /** Hz; 0: unvoiced or silent. */
  f0: number;
  /** RMS on the 16-bit scale. */
  rms: number;
}

/** F0 and level of each 20 ms frame of a 16 kHz stream. */
export class PitchTracker {
  /** The last WIN + MAX_LAG + 1 samples at 8 kHz (the history a window needs). */
  private hist = new Float64Array(WIN + MAX_LAG + 1);
  private carry = new Int16Array(0);
  private readonly r = new Float64Array(MAX_LAG + 2);

  /** Every whole 20 ms frame completed by `pcm` (16 kHz). */
  push(pcm: Int16Array): PitchFrame[] {
    const out: PitchFrame[] = [];
    let all = pcm;
    if (this.carry.length) {
      all = new Int16Array(this.carry.length + pcm.length);
      all.set(this.carry);
      all.set(pcm, this.carry.length);
    }
    let i = 0;
    for (; i + FRAME <= all.length; i += FRAME) out.push(this.frame(all.subarray(i, i + FRAME)));
    this.carry = all.slice(i);
    return out;
  }

  private frame(f: Int16Array): PitchFrame {
    const n = FRAME / 2;
    this.hist.copyWithin(0, n);
    const h = this.hist;
    const base = h.length - n;
    let energy = 0;
    for (let j = 0; j < n; j++) {
      const v = (f[2 * j]! + f[2 * j + 1]!) / 2;
      h[base + j] = v;
      energy += v * v;
    }
    const rms = Math.sqrt(energy / n);
    if (rms < MIN_RMS) return { f0: 0, rms };
    // The window is the newest WIN samples; lag k compares it with the samples k earlier.
    const w0 = h.length - WIN;
    let e0 = 0;
    for (let j = w0; j < h.length; j++) e0 += h[j]! * h[j]!;
    const r = this.r;
    const corr = (k: number): number => {
      let c = 0;
      let ek = 0;
      for (let j = w0; j < h.length; j++) {
        const x = h[j - k]!;
        c += h[j]! * x;
        ek += x * x;
      }
      return ek > 0 && e0 > 0 ? c / Math.sqrt(e0 * ek) : 0;
    };
    // The first strong peak, not the best overall: a multiple of the period correlates as well;
    // the lags past it are never computed.
    r[MIN_LAG - 1] = corr(MIN_LAG - 1);
    r[MIN_LAG] = corr(MIN_LAG);
    for (let k = MIN_LAG; k <= MAX_LAG; k++) {
      r[k + 1] = corr(k + 1);
      const a = r[k - 1]!;
      const b = r[k]!;
      const c = r[k + 1]!;
      if (b >= VOICED && b >= a && b > c) {
        // Parabolic interpolation: a lag between samples (at 200 Hz one lag step is 2.5%).
        const den = a - 2 * b + c;
        const shift = den < 0 ? (0.5 * (a - c)) / den : 0;
        return { f0: DRATE / (k + shift), rms };
      }
    }
    return { f0: 0, rms };
  }
}
