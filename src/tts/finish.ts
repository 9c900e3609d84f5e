// The last steps of synthesis, run in a worker: join segments with the break silences, resample
// once to the output rate, encode. Also the per-sentence resampling of /tts/stream.

import type { EnginePool } from '../engines/pool.js';
import type { PcmAudio } from '../engines/engine.js';
import { encodeAll, type AudioFormat } from '../audio/encoders.js';
import { concatInt16, silence, trimSilence } from '../audio/pcm.js';
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

/**
 * The pieces of a document in order: each segment (around a break, with the engine's padding
 * trimmed so the pause has the requested length; views, not copies) and the silences between.
 */
export function documentPieces(segments: Array<Int16Array | null>, silences: number[], rate: number): Int16Array[] {
  const parts: Int16Array[] = [];
  const hasBreaks = silences.length > 0;
  segments.forEach((seg, i) => {
    if (seg && seg.length) parts.push(hasBreaks ? trimSilence(seg, rate) : seg);
    const gap = silences[i];
    if (gap !== undefined && gap > 0) parts.push(silence(gap, rate));
  });
  return parts;
}

/** Worker side: join, resample, encode. */
export async function finishInWorker(p: FinishPayload): Promise<Uint8Array> {
  const parts = documentPieces(p.segments, p.silences, p.inputRate);
  // A long text is ~7 MB of PCM: no copy that is not needed (one part, same rate).
  const joined = parts.length === 1 ? parts[0]! : concatInt16(parts);
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
