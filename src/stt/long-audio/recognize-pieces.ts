// Recognizes a long recording's pieces (plan.ts) on the engine, `concurrency` at a time (its
// decoders: PARLA_STT_DECODERS for PocketSphinx, one for a sherpa model's thread), and joins them
// (join.ts). Each piece is one ordinary recognize() call on a view into the recording (no copy
// here), and a request never has more than `concurrency` pieces waiting or running: another
// request that comes meanwhile queues for a decoder ahead of this one's next piece (the decoder
// line is first come, first served), so it waits for one piece at most, not for the recording.
// An abort, or a piece that fails, stops the pieces not started and takes the waiting ones out of
// the decoder line; a piece being decoded runs to its end (native decoding cannot be interrupted).

import type { RecognitionOptions, RecognitionResult, SttEngine } from '../../engines/engine.js';
import { joinPieces } from './join.js';
import type { Piece } from './plan.js';

export interface PieceRun {
  concurrency: number;
  signal?: AbortSignal;
  /** Fraction of the recording's audio recognized so far, after each piece. */
  onProgress?: (fraction: number) => void;
  /**
   * Told each run of pieces as soon as it and every piece before it is recognized, joined on the
   * recording's timeline (streamed transcripts: OpenAI's stream=true), with the seconds of the
   * recording they reach to; in order, each piece once.
   */
  onPieces?: (joined: RecognitionResult, upToSeconds: number) => void;
}

export async function recognizePieces(
  engine: SttEngine,
  pcm: Int16Array,
  pieces: Piece[],
  opts: RecognitionOptions,
  sampleRate: number,
  run: PieceRun,
): Promise<RecognitionResult> {
  const stop = new AbortController();
  const signal = run.signal ? AbortSignal.any([run.signal, stop.signal]) : stop.signal;
  const results = new Array<RecognitionResult>(pieces.length);
  let next = 0;
  let done = 0;
  // Pieces before this one have been told to onPieces.
  let told = 0;
  const tell = () => {
    let k = told;
    while (k < pieces.length && results[k] !== undefined) k++;
    if (k === told || !run.onPieces) return;
    const joined = joinPieces(pieces.slice(told, k), results.slice(told, k), sampleRate, pcm.length);
    told = k;
    run.onPieces(joined, pieces[k - 1]!.end / sampleRate);
  };
  const lane = async () => {
    while (next < pieces.length) {
      signal.throwIfAborted();
      const i = next++;
      const p = pieces[i]!;
      results[i] = await engine.recognize(pcm.subarray(p.decodeStart, p.decodeEnd), opts, signal);
      done += p.end - p.start;
      if (!signal.aborted) {
        run.onProgress?.(done / pcm.length);
        tell();
      }
    }
  };
  const lanes = Array.from({ length: Math.max(1, Math.min(run.concurrency, pieces.length)) }, async () => {
    try {
      await lane();
    } catch (err) {
      // The other lanes stop too; the first failure is the one reported (allSettled below).
      stop.abort(err);
      throw err;
    }
  });
  const settled = await Promise.allSettled(lanes);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw run.signal?.aborted ? (run.signal.reason ?? failed.reason) : failed.reason;
  // Aborted while the last pieces were being decoded: the request fails all the same.
  run.signal?.throwIfAborted();
  return joinPieces(pieces, results, sampleRate, pcm.length);
}
