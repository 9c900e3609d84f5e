// What the voice did before a pause, for the turn layer (turns.ts): where the speech really ended
// (the last loud frame, which the VAD's hangover reports 100-200 ms late), and whether the pitch
// fell to the speaker's floor, as a finished statement's does ("... at nine." falls; a hesitation
// inside a sentence usually keeps the voice up). A weak cue, measured on Parla's voices
// (docs/benchmarks.md "Turns"): it takes the median turn end from 700 to 300 ms, but a quarter of
// the pauses after a stressed content word inside a sentence also read as a fall.

import { PitchTracker } from '../../audio/pitch.js';

/** Voiced frames kept as the speaker's pitch history (20 s of voice). */
const HISTORY = 1000;
/** Voiced frames before a pause that tell the final pitch (80 ms). */
const FINAL_FRAMES = 4;
/** Voiced frames needed before the floor means anything. */
const MIN_HISTORY = 20;
/** The floor: this quantile of the speaker's pitch; "at the floor" is within 1% of it. */
const FLOOR_QUANTILE = 0.05;
const AT_FLOOR = 1.01;
/** ...and below this share of the speaker's median pitch. */
const BELOW_MIDDLE = 0.97;
/** A frame is loud (speech, not its tail) above this share of the speaker's level (-20 dB)... */
const LOUD_SHARE = 0.1;
/** ...and above this absolute level (about -40 dBFS). */
const LOUD_MIN = 328;

export class Prosody {
  private readonly pitch = new PitchTracker();
  private frame = 0;
  private lastLoud = -1;
  /** A slow average of the RMS of voiced frames: the speaker's level. */
  private level = 0;
  private readonly voiced: number[] = [];
  /** The voiced frames' F0 since the last loud-to-quiet change, newest last. */
  private recent: number[] = [];

  constructor(private readonly frameSeconds: number) {}

  /** The next audio of the stream (16 kHz), as the VAD hears it. */
  push(pcm: Int16Array): void {
    for (const f of this.pitch.push(pcm)) {
      const loud = f.rms >= Math.max(LOUD_MIN, this.level * LOUD_SHARE);
      // Only loud voiced frames count: a breath or the room after the words is no intonation.
      if (f.f0 > 0 && loud) {
        this.level = this.level ? this.level * 0.98 + f.rms * 0.02 : f.rms;
        this.voiced.push(f.f0);
        if (this.voiced.length > HISTORY) this.voiced.shift();
        this.recent.push(f.f0);
        if (this.recent.length > FINAL_FRAMES) this.recent.shift();
      }
      if (loud) this.lastLoud = this.frame;
      this.frame++;
    }
  }

  /** Seconds since the last loud frame (0 while it is loud). */
  quietSeconds(): number {
    return this.lastLoud < 0 ? 0 : (this.frame - 1 - this.lastLoud) * this.frameSeconds;
  }

  /** Whether the last voiced frames sit at the speaker's pitch floor (a falling, finished statement). */
  fellToFloor(): boolean {
    if (this.voiced.length < MIN_HISTORY || this.recent.length < FINAL_FRAMES) return false;
    const sorted = [...this.voiced].sort((a, b) => a - b);
    const floor = sorted[Math.floor(sorted.length * FLOOR_QUANTILE)]!;
    const last = [...this.recent].sort((a, b) => a - b);
    const final = (last[1]! + last[2]!) / 2;
    // A level voice is at its floor all along: a fall also leaves the speaker's middle.
    const middle = sorted[Math.floor(sorted.length / 2)]!;
    return final <= floor * AT_FLOOR && final < middle * BELOW_MIDDLE;
  }
}
