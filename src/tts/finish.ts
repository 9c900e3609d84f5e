// The last steps of synthesis, run in a worker: join segments with the break silences, resample
// once to the output rate, encode. Also the per-sentence resampling of /tts/stream.

import type { EnginePool } from '../engines/pool.js';
import type { PcmAudio } from '../engines/engine.js';
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

export async function finishDocument(pool: EnginePool, rendered: Array<PcmAudio | null>, silences: number[], outputRate: number, format: AudioFormat, signal?: AbortSignal): Promise<Uint8Array> {
  const inputRate = rendered.find((r) => r !== null)?.sampleRate ?? outputRate;
  for (const r of rendered) if (r && r.sampleRate !== inputRate) throw new Error('segments rendered at different sample rates');
  const segments = rendered.map((r) => r?.samples ?? null);
  // The rendered PCM is moved to the worker, not copied: callers are done with it.
  const move = segments.filter((s): s is Int16Array => s !== null);
  return pool.run('tts.finish', { segments, silences, inputRate, outputRate, format }, signal ? { signal, move } : { move });
}

export async function resampleForOutput(pool: EnginePool, pcm: PcmAudio, outputRate: number, signal?: AbortSignal): Promise<Int16Array> {
  if (pcm.sampleRate === outputRate) return pcm.samples;
  return pool.run('audio.resample', { samples: pcm.samples, inputRate: pcm.sampleRate, outputRate }, signal ? { signal, move: [pcm.samples] } : { move: [pcm.samples] });
}
