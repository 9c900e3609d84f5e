// The worker half of planning a long recording: a voice-activity detector over the whole
// recording, then the cut points (plan.ts). Runs in the engine pool as the task `stt.plan`, never on
// the event loop, one recording per pool worker (the pool bounds how many at once), and never on
// the live sockets' Silero thread, which a ten-minute recording would hold for seconds.
// Silero VAD (src/audio/silero-vad.ts) serves when the caller passes its model (PARLA_VAD=silero,
// the default, and the model loads: src/audio/live-vad.ts); WebRTC's VAD (the energy and
// spectrum based detector, src/audio/vad.ts) serves otherwise, and also when Silero fails to load
// in the worker. Decision #72, docs/stt.md "Long recordings".

import { SileroVad } from '../../audio/silero-vad.js';
import { Vad } from '../../audio/vad.js';
import { planPieces, type CutRules, type Piece } from './plan.js';

const RATE = 16000;
/** Fed to the VAD a second at a time, so its working copy stays small whatever the length. */
const CHUNK = RATE;
/**
 * Mode 2 of 0-3 (3 is the most eager to call audio non-speech), as the real-time endpointer: on
 * LibriVox joined (2026-11-25, 7 pieces of 211 s, two runs each) mode 3 found pauses inside
 * sentences and cost more words at the cuts than mode 2.
 */
const VAD_MODE = 2;

export interface PlanDetector {
  /** Silero's model file: Silero cuts; absent, WebRTC's VAD does. */
  silero?: string;
}

export interface Plan {
  pieces: Piece[];
  /** The detector that found the pauses. */
  vad: 'silero' | 'webrtc';
}

function sileroFlags(pcm: Int16Array, model: string, threshold: number | undefined): Uint8Array {
  const vad = SileroVad.create(model, threshold === undefined ? {} : { threshold });
  const flags = new Uint8Array(Math.ceil(pcm.length / (SileroVad.frameSeconds() * RATE)));
  const f = new Float32Array(CHUNK);
  let n = 0;
  for (let i = 0; i < pcm.length; i += CHUNK) {
    const chunk = pcm.subarray(i, i + CHUNK);
    for (let k = 0; k < chunk.length; k++) f[k] = chunk[k]! / 32768;
    for (const speech of vad.process(f.subarray(0, chunk.length))) flags[n++] = speech ? 1 : 0;
  }
  // The last partial window is never classified: its frames count as they were (speech or not)
  // by repeating the last decision, so a recording's tail is not a pause by default.
  if (n > 0) flags.fill(flags[n - 1]!, n);
  // Silero reports both edges of a pause late (its cuts fell 0.10 s past the middle of the true gap
  // on Flite sentences, WebRTC's 0.03 s), but moving its flags 60 ms earlier made the word error
  // rate worse on both bench materials (docs/benchmarks.md "Long-recording cuts"): left as it is.
  return flags;
}

async function webrtcFlags(pcm: Int16Array, mode: number): Promise<Uint8Array> {
  const vad = await Vad.create(mode);
  try {
    const flags = new Uint8Array(Math.ceil(pcm.length / (Vad.frameSeconds() * RATE)));
    let n = 0;
    for (let i = 0; i < pcm.length; i += CHUNK) {
      for (const speech of vad.process(pcm.subarray(i, i + CHUNK))) flags[n++] = speech ? 1 : 0;
    }
    return flags.subarray(0, n);
  } finally {
    vad.free();
  }
}

export async function planLongAudio(
  pcm: Int16Array,
  pieceSeconds: number,
  cutting: CutRules = {},
  detector: PlanDetector = {},
): Promise<Plan> {
  const { vadMode, threshold, ...rules } = cutting;
  let flags: Uint8Array | null = null;
  let vad: Plan['vad'] = 'webrtc';
  if (detector.silero) {
    try {
      flags = sileroFlags(pcm, detector.silero, threshold);
      vad = 'silero';
    } catch (err) {
      console.warn(`long-audio cuts: Silero VAD failed in the worker, WebRTC's VAD cuts: ${(err as Error).message}`);
    }
  }
  flags ??= await webrtcFlags(pcm, vadMode ?? VAD_MODE);
  const pieces = planPieces(flags, pcm.length, { sampleRate: RATE, frameSamples: Vad.frameSeconds() * RATE, pieceSeconds, ...rules });
  return { pieces, vad };
}
