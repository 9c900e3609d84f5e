// /tts/generate's pipeline (interface.md, break tag rules): the text is split at break tags, the
// segments are synthesized in parallel on the worker pool, and one worker task joins them with
// silences of the requested lengths, resamples once and encodes. Any segment failing after its
// retries fails the whole request: incomplete audio is never returned.

import type { EnginePool } from '../engines/pool.js';
import { finishDocument } from './finish.js';
import { splitAtBreaks } from './markup.js';
import type { TtsJob } from './prepare.js';
import { renderItems } from './render.js';

export const OUTPUT_FORMATS = ['wav', 'mp3', 'ogg', 'flac'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
/** Sample rate of every /tts/generate file, whatever the engine's own rate. */
export const OUTPUT_SAMPLE_RATE = 24000;

export async function generateAudio(pool: EnginePool, job: TtsJob, format: OutputFormat, signal?: AbortSignal): Promise<{ bytes: Uint8Array; seconds: number }> {
  const { segments, silences } = splitAtBreaks(job.items);
  const rendered = await Promise.all(segments.map((seg) => renderItems(pool, job.voice, seg, signal)));
  const seconds = rendered.reduce((n, r) => n + (r ? r.samples.length / r.sampleRate : 0), 0) + silences.reduce((a, b) => a + b, 0);
  return { bytes: await finishDocument(pool, rendered, silences, OUTPUT_SAMPLE_RATE, format, signal), seconds };
}
