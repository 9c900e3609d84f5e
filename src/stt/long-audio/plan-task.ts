// The worker half of planning a long recording: WebRTC's VAD (the real-time endpointer's,
// src/realtime/vad.ts) over the whole recording, then the cut points (plan.ts). Runs in the engine
// pool as the task `stt.plan` (about 0.3 ms of work per audio second: 0.2 s for ten minutes, too
// much for the event loop).

import { Vad } from '../../realtime/vad.js';
import { planPieces, type Piece } from './plan.js';

const RATE = 16000;
/** Fed to the VAD a second at a time, so its working copy stays small whatever the length. */
const CHUNK = RATE;
/**
 * Mode 2 of 0-3 (3 is the most eager to call audio non-speech), as the real-time endpointer: on
 * LibriVox joined (2026-11-25, 7 pieces of 211 s, two runs each) mode 3 found pauses inside
 * sentences and cost more words at the cuts than mode 2.
 */
const VAD_MODE = 2;

export async function planLongAudio(pcm: Int16Array, pieceSeconds: number): Promise<Piece[]> {
  const vad = await Vad.create(VAD_MODE);
  try {
    const flags = new Uint8Array(Math.ceil(pcm.length / (Vad.frameSeconds() * RATE)));
    let n = 0;
    for (let i = 0; i < pcm.length; i += CHUNK) {
      for (const speech of vad.process(pcm.subarray(i, i + CHUNK))) flags[n++] = speech ? 1 : 0;
    }
    return planPieces(flags.subarray(0, n), pcm.length, { sampleRate: RATE, frameSamples: Vad.frameSeconds() * RATE, pieceSeconds });
  } finally {
    vad.free();
  }
}
