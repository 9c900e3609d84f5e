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
 * Mode 3, the most eager to call audio non-speech: a cut needs a pause, and the planner takes the
 * longest ones (the mode matters least there); the lower modes hear the room noise of a real
 * recording as speech and find few pauses.
 */
const VAD_MODE = 3;

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
