// /tts/generate's pipeline with the output in one of Deepgram's speak encodings (the dialect's
// POST /v1/speak): the same rendering (split at breaks, segments in parallel on the worker pool,
// the request's audio ceiling), then one worker task joins, resamples to the requested rate and
// encodes (src/tts/encode-task.ts). Incomplete audio is never returned.

import { WorkerPool } from '../workers/pool.js';
import type { SpeakEncodeSpec } from '../audio/speak-encoding.js';
import type { GeneratedAudio } from './generate.js';
import { splitAtBreaks } from './markup.js';
import type { TtsJob } from './prepare.js';
import { renderItems } from './speak-items.js';
import { AudioBudget } from './audio-limits.js';

export async function generateEncoded(pool: WorkerPool, job: TtsJob, spec: SpeakEncodeSpec, signal?: AbortSignal): Promise<GeneratedAudio> {
  return WorkerPool.inFlow(async () => {
    const { segments, silences } = splitAtBreaks(job.items);
    const budget = new AudioBudget(job.maxAudioSeconds);
    budget.take(silences.reduce((a, b) => a + b, 0));
    const rendered = await Promise.all(segments.map((seg) => renderItems(pool, job.voice, seg, signal, budget)));
    const seconds = rendered.reduce((n, r) => n + (r ? r.samples.length / r.sampleRate : 0), 0) + silences.reduce((a, b) => a + b, 0);
    const inputRate = rendered.find((r) => r !== null)?.sampleRate ?? spec.sampleRate;
    if (rendered.some((r) => r !== null && r.sampleRate !== inputRate)) throw new Error('segments rendered at different sample rates');
    const pcm = rendered.map((r) => r?.samples ?? null);
    const move = pcm.filter((s): s is Int16Array => s !== null);
    const bytes = await pool.run('tts.encode', { segments: pcm, silences, inputRate, spec }, signal ? { signal, move } : { move });
    return { body: bytes, byteLength: bytes.byteLength, seconds };
  });
}
