// The last steps of synthesis, sent to a worker (src/tts/finish-task.ts does the join,
// resampling and encoding there). Also the per-sentence resampling of /tts/stream.

import type { WorkerPool } from '../workers/pool.js';
import type { PcmAudio } from '../engines/engine.js';
import type { AudioFormat } from '../audio/encoders.js';

export async function finishDocument(
  pool: WorkerPool,
  rendered: Array<PcmAudio | null>,
  silences: number[],
  outputRate: number,
  format: AudioFormat,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const inputRate = rendered.find((r) => r !== null)?.sampleRate ?? outputRate;
  for (const r of rendered) if (r && r.sampleRate !== inputRate) throw new Error('segments rendered at different sample rates');
  const segments = rendered.map((r) => r?.samples ?? null);
  // The rendered PCM is moved to the worker, not copied: callers are done with it.
  const move = segments.filter((s): s is Int16Array => s !== null);
  return pool.run('tts.finish', { segments, silences, inputRate, outputRate, format }, signal ? { signal, move } : { move });
}

export async function resampleForOutput(pool: WorkerPool, pcm: PcmAudio, outputRate: number, signal?: AbortSignal): Promise<Int16Array> {
  if (pcm.sampleRate === outputRate) return pcm.samples;
  return pool.run(
    'audio.resample',
    { samples: pcm.samples, inputRate: pcm.sampleRate, outputRate },
    signal ? { signal, move: [pcm.samples] } : { move: [pcm.samples] },
  );
}
