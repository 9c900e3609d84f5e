// Batch recognition of a whole recording, the step SttService.transcribe runs: in one pass on one
// decoder, or, longer than `thresholdSeconds` (PARLA_STT_LONG_SECONDS) with PARLA_STT_PARALLEL on,
// cut at pauses into pieces (the VAD in a pool worker: plan-task.ts; Silero when it serves the
// live sockets too, else WebRTC's: decision #72) recognized in parallel on all of the engine's
// decoders and joined (recognize-pieces.ts). docs/stt.md "Long recordings".

import type { SttLongConfig } from '../../config.js';
import type { RecognitionOptions, RecognitionResult, SttEngine } from '../../engines/engine.js';
import type { WorkerPool } from '../../workers/pool.js';
import { vadKind } from '../../audio/live-vad.js';
import { recognizePieces } from './recognize-pieces.js';
import type { CutRules } from './plan.js';

const RATE = 16000;

export interface RecordingRecognition {
  result: RecognitionResult;
  /** Pieces recognized: 1 for the one-pass path. */
  pieces: number;
  /** The detector that found the pauses, when the recording was planned for cutting. */
  vad?: 'silero' | 'webrtc';
}

/** A request's own say in cutting: its rules, and who hears each run of pieces recognized. */
export interface RecordingCut {
  rules?: CutRules;
  onPieces?: (joined: RecognitionResult, upToSeconds: number) => void;
}

export async function recognizeRecording(
  engine: SttEngine,
  pcm: Int16Array,
  opts: RecognitionOptions,
  d: { pool: WorkerPool; long: SttLongConfig; signal?: AbortSignal; onProgress?: (fraction: number) => void; cut?: RecordingCut },
): Promise<RecordingRecognition> {
  // A client that asks for pieces (its own cutting rules, or a streamed transcript) gets them from
  // a piece's length on; otherwise the operator's rule decides.
  const cut = d.cut ? pcm.length > d.long.pieceSeconds * RATE : d.long.parallel && pcm.length > d.long.thresholdSeconds * RATE;
  if (cut) {
    const silero = d.long.cutVad === 'silero' ? await vadKind() : null;
    const detector = silero?.kind === 'silero' && silero.model ? { silero: silero.model } : {};
    const { pieces, vad } = await d.pool.run(
      'stt.plan',
      { pcm, pieceSeconds: d.long.pieceSeconds, detector, ...(d.cut?.rules ? { cutting: d.cut.rules } : {}) },
      d.signal ? { signal: d.signal } : {},
    );
    if (pieces.length > 1) {
      const run = {
        concurrency: engine.concurrency?.(opts) ?? 1,
        ...(d.signal ? { signal: d.signal } : {}),
        ...(d.onProgress ? { onProgress: d.onProgress } : {}),
        ...(d.cut?.onPieces ? { onPieces: d.cut.onPieces } : {}),
      };
      return { result: await recognizePieces(engine, pcm, pieces, opts, RATE, run), pieces: pieces.length, vad };
    }
    const result = await engine.recognize(pcm, opts, d.signal);
    d.onProgress?.(1);
    d.cut?.onPieces?.(result, pcm.length / RATE);
    return { result, pieces: 1, vad };
  }
  const result = await engine.recognize(pcm, opts, d.signal);
  d.onProgress?.(1);
  d.cut?.onPieces?.(result, pcm.length / RATE);
  return { result, pieces: 1 };
}
