// Silero VAD (a small neural voice-activity detector, ONNX) run by sherpa-onnx-node, giving the
// same 20 ms frame decisions as the WebRTC VAD (vad.ts) so endpointing, turns and long-audio
// planning need no change. The model is Silero v5 as shipped in @ricky0123/vad-web
// (dist/silero_vad_v5.onnx, MIT model, sha256 2623a295...788f; docs/engines.md). Its compute is
// synchronous native code (~0.1 ms per 32 ms window): callers on the event loop use the thread
// (silero-thread.ts), never this class directly.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const RATE = 16000;
/** Silero v5 at 16 kHz reads 512-sample (32 ms) windows. */
const WINDOW = 512;
/** The frame every detector reports, as vad.ts. */
const FRAME = 320;

interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isDetected(): boolean;
  isEmpty(): boolean;
  pop(): void;
  reset(): void;
}

/**
 * The model file's path: PARLA_SILERO_MODEL when the operator names one (it must exist), else the
 * one shipped in @ricky0123/vad-web; null when there is none.
 */
export function sileroModelPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const own = env.PARLA_SILERO_MODEL?.trim();
  if (own) return existsSync(own) ? own : null;
  try {
    const pkg = require.resolve('@ricky0123/vad-web/package.json');
    const file = join(dirname(pkg), 'dist', 'silero_vad_v5.onnx');
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

export interface SileroOptions {
  /** Speech probability above which a window is speech (Silero's default 0.5; it leaves speech below threshold - 0.15). */
  threshold?: number;
}

export class SileroVad {
  private carry = new Float32Array(0);
  /** Decision of each window not yet mapped onto 20 ms frames, the first being window `firstWindow`. */
  private decisions: boolean[] = [];
  private firstWindow = 0;
  private windows = 0;
  private frames = 0;

  private constructor(private readonly vad: SherpaVad) {}

  static create(model: string, o: SileroOptions = {}): SileroVad {
    // sherpa does not throw for a missing model: it logs and makes a detector that hears no speech
    // at all, which would silently cut long recordings anywhere and never start a live turn.
    if (!existsSync(model)) throw new Error(`Silero VAD model ${model} does not exist`);
    const sherpa = require('sherpa-onnx-node') as { Vad: new (config: object, bufferSeconds: number) => SherpaVad };
    const vad = new sherpa.Vad(
      {
        sileroVad: {
          model,
          threshold: o.threshold ?? 0.5,
          // Raw decisions (with Silero's own hysteresis): the silence and onset rules are the
          // endpointer's. Not 0: sherpa's C API reads 0 as "its default" (0.5 s and 0.25 s).
          minSilenceDuration: 0.001,
          minSpeechDuration: 0.001,
          windowSize: WINDOW,
          // sherpa keeps the audio of the speech in progress; past this it raises its threshold
          // until the speech ends, which bounds that memory (64 kB per second held).
          maxSpeechDuration: 30,
        },
        sampleRate: RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: false,
      },
      // Seconds of audio sherpa keeps for the speech in progress (completed segments are drained
      // after every window): room for the longest (maxSpeechDuration) from the start, ~2 MB. A
      // smaller buffer grows by copying in the middle of long speech, and sherpa prints an
      // "Overflow! ... Increase capacity" line to stderr each time it does.
      32,
    );
    return new SileroVad(vad);
  }

  /** Classifies the 20 ms frames in pcm (16 kHz, float): true = speech. A frame is told once the window holding its end is done. */
  process(pcm: Float32Array): boolean[] {
    const all = new Float32Array(this.carry.length + pcm.length);
    all.set(this.carry);
    all.set(pcm, this.carry.length);
    let i = 0;
    for (; i + WINDOW <= all.length; i += WINDOW) {
      this.vad.acceptWaveform(all.subarray(i, i + WINDOW));
      this.decisions.push(this.vad.isDetected());
      while (!this.vad.isEmpty()) this.vad.pop();
      this.windows++;
    }
    this.carry = all.slice(i);
    const out: boolean[] = [];
    while ((this.frames + 1) * FRAME <= this.windows * WINDOW) {
      const w = Math.floor(((this.frames + 1) * FRAME - 1) / WINDOW);
      out.push(this.decisions[w - this.firstWindow]!);
      this.frames++;
    }
    // Keep only the windows later frames still read.
    const keepFrom = Math.floor((this.frames * FRAME) / WINDOW);
    if (keepFrom > this.firstWindow) {
      this.decisions.splice(0, keepFrom - this.firstWindow);
      this.firstWindow = keepFrom;
    }
    return out;
  }

  /** As new: the detector's recurrent state and this wrapper's windows (a detector is reused by the next stream: its model costs ~120 ms of CPU to load). */
  reset(): void {
    this.vad.reset();
    this.carry = new Float32Array(0);
    this.decisions = [];
    this.firstWindow = 0;
    this.windows = 0;
    this.frames = 0;
  }

  static frameSeconds(): number {
    return FRAME / RATE;
  }
}
