// The worker half of finishing a synthesis: join segments with the break silences, resample once
// to the output rate, encode (the 'tts.finish' task). Beside the pool, not in src/tts/, so the
// pool's task table needs nothing from the TTS service (tts/finish.ts sends the task).

import { encodeAll, type AudioFormat } from '../audio/encoders.js';
import { trimSilence } from '../audio/pcm.js';
import { resampleInt16 } from '../audio/resample.js';

export interface FinishPayload {
  /** Rendered segments in order (null: a segment with nothing to say). */
  segments: Array<Int16Array | null>;
  /** Silence after segment i, seconds (length = segments - 1). */
  silences: number[];
  inputRate: number;
  outputRate: number;
  format: AudioFormat;
}

/** A piece of a document: PCM samples, or a number of samples of silence (never allocated). */
export type DocumentPiece = Int16Array | number;

/**
 * The pieces of a document in order: each segment (around a break, with the engine's padding
 * trimmed so the pause has the requested length; views, not copies) and the silences between, as
 * sample counts. Silence is never materialized piece by piece: 262 breaks of 20 s were 167 MB of
 * zeros in 640 KB arrays, small enough for malloc to keep after the request (RSS that never came
 * back); the join leaves zeros where they go and the WAV stream writes one shared zero buffer.
 */
export function documentPieces(segments: Array<Int16Array | null>, silences: number[], rate: number): DocumentPiece[] {
  const parts: DocumentPiece[] = [];
  const hasBreaks = silences.length > 0;
  segments.forEach((seg, i) => {
    if (seg && seg.length) parts.push(hasBreaks ? trimSilence(seg, rate) : seg);
    const gap = silences[i];
    if (gap !== undefined && gap > 0) parts.push(Math.max(0, Math.round(gap * rate)));
  });
  return parts;
}

export const pieceSamples = (p: DocumentPiece): number => (typeof p === 'number' ? p : p.length);

/** The pieces joined in one allocation (zeros where the silences go). */
export function joinDocument(parts: DocumentPiece[]): Int16Array {
  const only = parts[0];
  if (parts.length === 1 && only !== undefined && typeof only !== 'number') return only;
  const out = new Int16Array(parts.reduce<number>((n, p) => n + pieceSamples(p), 0));
  let o = 0;
  for (const p of parts) {
    if (typeof p !== 'number') out.set(p, o);
    o += pieceSamples(p);
  }
  return out;
}

/** Worker side: join, resample, encode. */
export async function finishInWorker(p: FinishPayload): Promise<Uint8Array> {
  // A long text is ~7 MB of PCM: no copy that is not needed (one part, same rate).
  const joined = joinDocument(documentPieces(p.segments, p.silences, p.inputRate));
  const output = p.inputRate === p.outputRate ? joined : resampleInt16(joined, p.inputRate, p.outputRate);
  const bytes = await encodeAll(p.format, output, p.outputRate);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
