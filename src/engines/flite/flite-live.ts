// A Flite synthesis for /tts/stream, run in a pool worker (task 'tts.flite-live'): libflite's
// vocoder hands its audio over as it finishes it (native/flite), and the worker puts each piece
// through the output stage and the stream's resampler and posts it, so a sentence's first sound
// leaves after ~20 ms of its ~60 ms synthesis (decision #100), and none of this per-piece work runs
// on the event loop. A pitch shift Flite cannot make itself (rms) needs the whole utterance: then
// the whole is shifted, levelled and posted in pieces.

import { Leveler } from '../../audio/dsp/level.js';
import { voiceOutput } from '../../audio/dsp/voice-output.js';
import { concatInt16 } from '../../audio/pcm.js';
import { LiveSender, postWhole, type LiveAudioMessage, type LiveDelivery } from '../../audio/live-sender.js';
import { loadFliteNative } from './flite-native.js';

export interface FliteLiveTask {
  voice: string;
  text: string;
  /** The program's `--setf` values (FliteEngine builds them). */
  settings: string[];
  /** On a SharedArrayBuffer: the caller sets [0] to stop the vocoder (abort, timeout). */
  cancel: Int32Array;
  /** The shift after synthesis (0 unless the voice cannot move its own pitch). */
  semitones: number;
  gainDb: number;
  live: LiveDelivery;
}

/** Where the pieces go: straight through the output stage, or kept for a shift of the whole. */
class LiveOutput {
  private sender: LiveSender | null = null;
  private stage: Leveler | null = null;
  private readonly kept: Int16Array[] = [];
  private rate = 0;
  samples = 0;

  constructor(private readonly task: FliteLiveTask) {}

  private get shift(): boolean {
    return Math.abs(this.task.semitones) >= 0.01;
  }

  take(piece: Int16Array, sampleRate: number): void {
    this.samples += piece.length;
    this.rate = sampleRate;
    if (this.shift) {
      this.kept.push(piece);
      return;
    }
    // Made at the first piece, which tells the voice's rate.
    this.sender ??= new LiveSender(this.task.live.port, sampleRate, this.task.live.outputRate);
    this.stage ??= new Leveler(sampleRate, { gainDb: this.task.gainDb, dc: true });
    this.sender.push(this.stage.push(piece));
  }

  end(): void {
    const { task } = this;
    if (this.shift && this.samples > 0) {
      const out = voiceOutput({
        samples: concatInt16(this.kept),
        sampleRate: this.rate,
        semitones: task.semitones,
        gainDb: task.gainDb,
        dc: true,
      });
      postWhole(task.live, out, this.rate);
    } else if (this.sender && this.stage) {
      this.sender.push(this.stage.end());
      this.sender.end();
    } else task.live.port.postMessage({ end: true } satisfies LiveAudioMessage);
  }
}

/** Resolves once every piece is posted (then `{ end: true }`); rejects as the addon does. */
export async function synthesizeFliteLive(task: FliteLiveTask): Promise<{ samples: number }> {
  const addon = loadFliteNative();
  if (!('native' in addon)) throw new Error(addon.error);
  const out = new LiveOutput(task);
  // The addon ignores what its callback throws (the vocoder must not stop half-way inside C), so a
  // failure here stops the synthesis through its cancel flag and is raised once it has returned.
  let failed: { err: unknown } | null = null;
  const take = (p: Int16Array, rate: number) => {
    if (failed) return;
    try {
      out.take(p, rate);
    } catch (err) {
      failed = { err };
      Atomics.store(task.cancel, 0, 1);
    }
  };
  const rest = await addon.native.synthesize(task.voice, task.text, task.settings, task.cancel, take).catch((err: unknown) => {
    throw failed ? failed.err : err;
  });
  if (failed) throw (failed as { err: unknown }).err;
  if (rest.samples.length > 0) out.take(rest.samples, rest.sampleRate);
  out.end();
  return { samples: out.samples };
}
