// DC removal for engine output. eSpeak's Klatt voice "caleb" (klatt 6, all breath, no voicing)
// puts out speech that sits 0.07-0.10 of full scale below zero, and Flite's rms voice about 0.005:
// wasted headroom, a click where the audio starts or is cut, and silence that is not silent
// (which trims and pause detection read as sound). The offset comes from the engines' own
// synthesizers, so it is removed where their audio comes out: a one-pole high-pass at 20 Hz
// (below any voice's fundamental) for audio that comes in pieces, the mean taken off for a whole
// utterance. Written here because each is a few lines of arithmetic.

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

  /** The next piece, filtered into a new array (the input is left as it is). */
  process(x: Int16Array): Int16Array {
    const out = new Int16Array(x.length);
    let px = this.prevIn;
    let py = this.prevOut;
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!;
      py = v - px + this.r * py;
      px = v;
      const y = Math.round(py);
      out[i] = y > 32767 ? 32767 : y < -32768 ? -32768 : y;
    }
    this.prevIn = px;
    this.prevOut = py;
    return out;
  }
}

/** The audio with its DC offset removed (a new array). */
export function removeDc(x: Int16Array, sampleRate: number): Int16Array {
  return new DcBlocker(sampleRate).process(x);
}

/**
 * Takes the mean off a whole utterance, in place. One cheap pass each to sum and to subtract (no
 * chain of dependent float operations like the high-pass), so an engine whose audio arrives on the
 * main thread (Flite) can afford it there: under a millisecond for 20 s of 16 kHz audio.
 */
export function subtractMean(x: Int16Array): void {
  if (x.length === 0) return;
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]!;
  const mean = Math.round(sum / x.length);
  if (mean === 0) return;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]! - mean;
    x[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
}

/** Mean sample value as a fraction of full scale (the DC offset). */
export function dcOffset(x: Int16Array): number {
  if (x.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]!;
  return sum / x.length / 32768;
}
