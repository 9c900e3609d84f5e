// Batch recognition of a whole recording, the step SttService.transcribe runs: in one pass on one
// decoder, or, longer than `thresholdSeconds` (PARLA_STT_LONG_SECONDS) with PARLA_STT_PARALLEL on,
// cut at pauses into pieces (the VAD in a pool worker: plan-task.ts) recognized in parallel on all
// of the engine's decoders and joined (recognize-pieces.ts). docs/stt.md "Long recordings".

import type { SttLongConfig } from '../../config.js';
import type { RecognitionOptions, RecognitionResult, SttEngine } from '../../engines/engine.js';
import type { EnginePool } from '../../workers/pool.js';
import { recognizePieces } from './recognize-pieces.js';

const RATE = 16000;

export interface RecordingRecognition {
  result: RecognitionResult;
  /** Pieces recognized: 1 for the one-pass path. */
  pieces: number;
}

export async function recognizeRecording(
  engine: SttEngine,
  pcm: Int16Array,
  opts: RecognitionOptions,
  d: { pool: EnginePool; long: SttLongConfig; signal?: AbortSignal; onProgress?: (fraction: number) => void },
): Promise<RecordingRecognition> {
  if (d.long.parallel && pcm.length > d.long.thresholdSeconds * RATE) {
    const pieces = await d.pool.run('stt.plan', { pcm, pieceSeconds: d.long.pieceSeconds }, d.signal ? { signal: d.signal } : {});
    if (pieces.length > 1) {
      const run = { concurrency: engine.concurrency?.(opts) ?? 1, ...(d.signal ? { signal: d.signal } : {}), ...(d.onProgress ? { onProgress: d.onProgress } : {}) };
      return { result: await recognizePieces(engine, pcm, pieces, opts, RATE, run), pieces: pieces.length };
    }
  }
  const result = await engine.recognize(pcm, opts, d.signal);
  d.onProgress?.(1);
  return { result, pieces: 1 };
}
