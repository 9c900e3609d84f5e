// The last step of every engine's output (docs/tts.md, "Level"): the DC high-pass, one fixed gain
// per voice (calibrated to the loudness target, src/tts/levels.ts) and a look-ahead true-peak
// limiter, then 16-bit PCM. Before it, a pitch shift or a gain could push samples past full
// scale and the conversion to 16 bits clipped them (issue 29: 603 clipped samples on one
// sentence); after it no sample is above the ceiling, measured on a 4x oversampled estimate.
//
// The limiter's gain at a sample depends only on the samples within its look-ahead and release
// around it, never on where a piece of audio starts or ends: fed in any pieces, it gives the same
// samples as fed the whole (the stream and the file agree). Written here because the few npm
// limiters are for Web Audio graphs, not for PCM in a worker.

/**
 * The ceiling the limiter holds, true peak, dBFS: 1 dB under the -1 dBTP promised, the room lossy
 * encoding needs (Ogg Vorbis at quality 5 added 0.4-0.5 dB on limited speech, at quality 3 1.3 dB;
 * MP3 at 64 kbps less), as EBU R128 s1 advises for lossy delivery.
 */
export const LIMIT_DBTP = -2;
/** The promised ceiling (decision #40 in docs/decisions.md). */
export const CEILING_DBTP = -1;
const LOOKAHEAD_S = 0.003;
const RELEASE_S = 0.08;
const DC_CUTOFF_HZ = 20;

/** Half the taps of each 4x interpolation phase (16 taps a phase). */
const HALF = 8;
/** The 4x interpolator's phases at 1/4, 2/4 and 3/4 of a sample: Hann-windowed sinc. */
const PHASES: Float64Array[] = [1, 2, 3].map((p) => {
  const f = p / 4;
  const h = new Float64Array(2 * HALF);
  for (let j = 0; j < 2 * HALF; j++) {
    // Tap j weighs x[n - HALF + 1 + j] for the point n + f.
    const t = j - (HALF - 1) - f;
    const sinc = Math.abs(t) < 1e-12 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t);
    const w = 0.5 + 0.5 * Math.cos((Math.PI * t) / (HALF + 1));
    h[j] = sinc * w;
  }
  return h;
});

const [P1, P2, P3] = PHASES as [Float64Array, Float64Array, Float64Array];

/** The most an interpolated point can be, as a multiple of the largest of the 16 samples it weighs. */
const TAP_GAIN = Math.max(...PHASES.map((h) => h.reduce((a, b) => a + Math.abs(b), 0)));

/**
 * True peak of float audio (full scale 1), linear: the largest of the samples and 3 points between
 * each pair. The points are computed only where the samples they weigh could put one above the
 * peak found so far (the largest |sample| of each 16-sample block bounds them): the same maximum,
 * at a fraction of the work on speech, whose loud stretches are short.
 */
export function truePeak(x: Float32Array | Float64Array): number {
  const n = x.length;
  const block = 2 * HALF;
  const blocks = new Float64Array(Math.ceil(n / block) + 1);
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(x[i]!);
    if (a > peak) peak = a;
    const b = (i / block) | 0;
    if (a > blocks[b]!) blocks[b] = a;
  }
  for (let k = HALF - 1; k + HALF < n; k++) {
    // The taps of the points between k and k + 1 weigh x[k - HALF + 1 .. k + HALF]: two blocks at most.
    const lo = blocks[((k - HALF + 1) / block) | 0]!;
    const hi = blocks[((k + HALF) / block) | 0]!;
    if ((lo > hi ? lo : hi) * TAP_GAIN <= peak) continue;
    const base = k - HALF + 1;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    for (let j = 0; j < 2 * HALF; j++) {
      const v = x[base + j]!;
      a1 += P1[j]! * v;
      a2 += P2[j]! * v;
      a3 += P3[j]! * v;
    }
    peak = Math.max(peak, Math.abs(a1), Math.abs(a2), Math.abs(a3));
  }
  return peak;
}

export function truePeakInt16Db(x: Int16Array): number {
  const f = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) f[i] = x[i]! / 32768;
  return 20 * Math.log10(truePeak(f));
}

export interface LevelOptions {
  /** The voice's fixed gain, dB (0: the limiter alone). */
  gainDb: number;
  /** Run the DC high-pass first (engines whose output has an offset). */
  dc?: boolean;
  /**
   * Interpolate every sample's true peak, also where no sample near it is loud enough to need it
   * (true: the reference the tests compare the default path with; the samples out are the same).
   */
  exhaustive?: boolean;
}

/**
 * The output stage as a stream: push pieces (16-bit or float, full scale 1 for float), get 16-bit
 * pieces back, `end()` for the rest. Output lags input by the look-ahead; the total length is the
 * input's.
 */
export class Leveler {
  private readonly gain: number;
  private readonly limit = 10 ** (LIMIT_DBTP / 20);
  private readonly look: number;
  private readonly release: number;
  private readonly dcR: number;
  private readonly dc: boolean;
  /**
   * Above this |sample| (the limit over the interpolator's largest gain) a sample could put an
   * interpolated point near it over the limit; a position with none such within HALF samples
   * either side needs no gain and no interpolation (decision #104). -1 when exhaustive: every
   * sample counts as loud.
   */
  private readonly loud: number;
  /** The last position (of the whole stream) scanned for loud samples, and the last loud one. */
  private scanned = -1;
  private lastLoud = Number.NEGATIVE_INFINITY;
  private dcIn = 0;
  private dcOut = 0;
  private dcOut2 = 0;
  /** Gained input not yet sent out (a ring would save copies; pieces are ~100 ms). */
  private x: Float64Array = new Float64Array(0);
  /** Index (on the whole stream) of x[0]. */
  private xStart = 0;
  /** Samples pushed so far. */
  private pushed = 0;
  /** Next position whose needed gain r is to be computed. */
  private rNext = 0;
  /** Needed gains r[k] for the last `mask + 1` positions (a ring: the window is look + 1 long). */
  private readonly r: Float64Array;
  private readonly mask: number;
  /** Monotonic deque (a ring of positions, head..tail) for the sliding minimum of r. */
  private readonly dq: Int32Array;
  private dqHead = 0;
  private dqTail = 0;
  private held = 1;
  /** The last look+1 released gains (box average), and their sum. */
  private box: Float64Array;
  private boxSum: number;
  private boxAt = 0;
  /** Next output position. */
  private out = 0;

  constructor(sampleRate: number, opts: LevelOptions) {
    this.gain = 10 ** (opts.gainDb / 20);
    this.look = Math.max(1, Math.round(LOOKAHEAD_S * sampleRate));
    this.release = 1 - Math.exp(-1 / (RELEASE_S * sampleRate));
    this.dc = opts.dc ?? false;
    this.loud = opts.exhaustive ? -1 : this.limit / TAP_GAIN;
    this.dcR = Math.exp((-2 * Math.PI * DC_CUTOFF_HZ) / sampleRate);
    this.box = new Float64Array(this.look + 1).fill(1);
    let size = 1;
    while (size < this.look + 2) size *= 2;
    this.mask = size - 1;
    this.r = new Float64Array(size);
    this.dq = new Int32Array(size);
    this.boxSum = this.look + 1;
  }

  push(piece: Int16Array | Float32Array | Float64Array): Int16Array {
    const scale = piece instanceof Int16Array ? 1 / 32768 : 1;
    const add = new Float64Array(piece.length);
    let px = this.dcIn;
    let py = this.dcOut;
    let pz = this.dcOut2;
    for (let i = 0; i < piece.length; i++) {
      let v = piece[i]! * scale;
      if (this.dc) {
        // Two one-pole sections (12 dB/octave below 20 Hz): one left the slow wander of eSpeak's
        // caleb, whose offset follows its syllables, at a mean of 0.011 of full scale once the
        // calibrated gain (+22..27 dB: a quiet voice) was applied; two, 0.002.
        const y1 = v - px + this.dcR * py;
        px = v;
        pz = y1 - py + this.dcR * pz;
        py = y1;
        v = pz;
      }
      add[i] = v * this.gain;
    }
    this.dcIn = px;
    this.dcOut = py;
    this.dcOut2 = pz;
    this.append(add);
    this.pushed += piece.length;
    return this.drain(false);
  }

  end(): Int16Array {
    return this.drain(true);
  }

  private append(add: Float64Array): void {
    // Keep what the interpolator still needs behind the next r position, and everything not out yet.
    const keepFrom = Math.min(this.out, this.rNext - HALF);
    const drop = Math.max(0, keepFrom - this.xStart);
    const next = new Float64Array(this.x.length - drop + add.length);
    next.set(this.x.subarray(drop));
    next.set(add, this.x.length - drop);
    this.x = next;
    this.xStart += drop;
  }

  private at(k: number): number {
    const i = k - this.xStart;
    return i >= 0 && i < this.x.length ? this.x[i]! : 0;
  }

  /** Largest |value| of the 3 points between k - 1 and k (interval k - 1), carried to the next k. */
  private lastInterval = 0;

  /** The gain sample k needs: the ceiling over its true peak (it and the points either side). */
  private needed(k: number): number {
    // Every sample the points either side of k weigh is in [k - HALF, k + HALF]; when none of them
    // is loud, no point can pass the limit and the gain is 1. The interval carried to k + 1 is then
    // left at 0: a value under the limit never changes the gain (it only counts when it is the
    // largest and over the limit), so the samples out are those of the exhaustive path.
    for (const until = k + HALF; this.scanned < until; ) {
      this.scanned++;
      if (Math.abs(this.at(this.scanned)) > this.loud) this.lastLoud = this.scanned;
    }
    if (this.lastLoud < k - HALF) {
      this.lastInterval = 0;
      return 1;
    }
    const base = k - HALF + 1 - this.xStart;
    const x = this.x;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    if (base >= 0 && base + 2 * HALF <= x.length) {
      for (let j = 0; j < 2 * HALF; j++) {
        const v = x[base + j]!;
        a1 += P1[j]! * v;
        a2 += P2[j]! * v;
        a3 += P3[j]! * v;
      }
    } else {
      for (let j = 0; j < 2 * HALF; j++) {
        const v = this.at(k - HALF + 1 + j);
        a1 += P1[j]! * v;
        a2 += P2[j]! * v;
        a3 += P3[j]! * v;
      }
    }
    const next = Math.max(Math.abs(a1), Math.abs(a2), Math.abs(a3));
    const p = Math.max(Math.abs(this.at(k)), this.lastInterval, next);
    this.lastInterval = next;
    return p > this.limit ? this.limit / p : 1;
  }

  private drain(final: boolean): Int16Array {
    const total = this.pushed;
    // r[k] needs input up to k + HALF; the gain at n needs r up to n + look. r and the output
    // advance in lockstep, so the minimum for n never sees past n + look, however the input was cut.
    const rUntil = final ? total + this.look : total - HALF;
    const y = new Int16Array(Math.max(0, Math.min(total, rUntil - this.look) - this.out));
    // The state in locals for the loop (a sample's few steps run millions of times a request),
    // written back after it.
    const { r, mask: m, dq, box, look, release } = this;
    const boxLength = box.length;
    let { dqHead, dqTail, held, boxSum, boxAt } = this;
    let o = 0;
    let k = this.rNext;
    for (; k < rUntil; k++) {
      const v = k < total ? this.needed(k) : 1;
      r[k & m] = v;
      while (dqTail > dqHead && r[dq[(dqTail - 1) & m]! & m]! >= v) dqTail--;
      dq[dqTail++ & m] = k;
      // n: the position whose forward window [n, n + look] is now complete (negative at the start:
      // those held gains fill the box before the first sample, so a peak at the very start is held too).
      const n = k - look;
      while (dq[dqHead & m]! < n) dqHead++;
      const h = r[dq[dqHead & m]! & m]!;
      const released = held + (1 - held) * release;
      held = h < released ? h : released;
      boxSum += held - box[boxAt]!;
      box[boxAt] = held;
      if (++boxAt === boxLength) boxAt = 0;
      if (n < 0) continue;
      // Each held gain in the box (those of [n - look, n]) looked at a window that holds n, so
      // their mean is at most what n needs: the ramp down starts look samples before a peak.
      const mean = boxSum / boxLength;
      const s = Math.round(this.x[n - this.xStart]! * (mean < 1 ? mean : 1) * 32768);
      y[o++] = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
    }
    this.rNext = k;
    this.dqHead = dqHead;
    this.dqTail = dqTail;
    this.held = held;
    this.boxSum = boxSum;
    this.boxAt = boxAt;
    this.out += o;
    return o === y.length ? y : y.subarray(0, o);
  }
}

/** The output stage on a whole piece of audio. */
export function level(x: Int16Array | Float32Array | Float64Array, sampleRate: number, opts: LevelOptions): Int16Array {
  const l = new Leveler(sampleRate, opts);
  const a = l.push(x);
  const b = l.end();
  if (b.length === 0) return a;
  const out = new Int16Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
