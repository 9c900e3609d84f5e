// DC removal for engine output. eSpeak's Klatt voice "caleb" (klatt 6, all breath, no voicing)
// sits 0.05-0.25 of full scale below zero while it speaks (0.07-0.10 over a sentence), and
// Flite's rms voice about 0.005 above: wasted headroom, a thump at every pause, and a click
// where the audio is cut. The offset comes from the engines' own synthesizers and moves with the
// speech (zero in pauses), so taking the mean off would leave the pauses off zero instead: it is
// removed where their audio comes out by a one-pole high-pass at 20 Hz, below any voice's
// fundamental. Written here because it is three lines of arithmetic.

/** Cut-off of the high-pass, Hz. */
export const DC_CUTOFF_HZ = 20;

/** A DC-blocking filter whose state carries across the pieces of one stream of audio. */
export class DcBlocker {
  private readonly r: number;
  private prevIn = 0;
  private prevOut = 0;

  constructor(sampleRate: number, cutoffHz = DC_CUTOFF_HZ) {
    this.r = Math.exp((-2 * Math.PI * cutoffHz) / sampleRate);
  }

  /** The next piece, filtered into `out` (a new array unless given; it may be `x` itself). */
  process(x: Int16Array, out: Int16Array = new Int16Array(x.length)): Int16Array {
    let px = this.prevIn;
    let py = this.prevOut;
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!;
      py = v - px + this.r * py;
      px = v;
      // Rounded half away from zero with integer ops (Math.round is ~3x slower here); py stays
      // well inside int32 range.
      const y = py >= 0 ? (py + 0.5) | 0 : -((0.5 - py) | 0);
      out[i] = y > 32767 ? 32767 : y < -32768 ? -32768 : y;
    }
    this.prevIn = px;
    this.prevOut = py;
    return out;
  }
}

/**
 * A whole utterance with its DC offset removed: into a new array, or in place with inPlace (for
 * an array the caller owns). One pass of a few operations per sample: ~1 ms for 20 s of audio.
 */
export function removeDc(x: Int16Array, sampleRate: number, opts: { inPlace?: boolean } = {}): Int16Array {
  return new DcBlocker(sampleRate).process(x, opts.inPlace ? x : undefined);
}

/** Mean sample value as a fraction of full scale (the DC offset). */
export function dcOffset(x: Int16Array): number {
  if (x.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]!;
  return sum / x.length / 32768;
}
