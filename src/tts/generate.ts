// /tts/generate's pipeline (docs/interface.md, break tag rules): the text is split at break tags, the
// segments are synthesized in parallel on the worker pool, and one worker task joins them with
// silences of the requested lengths, resamples once and encodes (a WAV is only a header and a
// copy, written without the extra pool task). Any segment failing after its
// retries fails the whole request: incomplete audio is never returned.

import { EnginePool } from '../engines/pool.js';
import { documentPieces, finishDocument } from './finish.js';
import { splitAtBreaks } from './markup.js';
import type { TtsJob } from './prepare.js';
import { renderItems } from './render.js';
import { encodeWavParts } from '../audio/wav.js';
import { AudioBudget } from './audio-limits.js';

export const OUTPUT_FORMATS = ['wav', 'mp3', 'ogg', 'flac'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export async function generateAudio(pool: EnginePool, job: TtsJob, format: OutputFormat, signal?: AbortSignal): Promise<{ bytes: Uint8Array; seconds: number }> {
  // One flow: this request's chunks take turns with other requests' work in the pool's queue.
  return EnginePool.inFlow(() => generateInFlow(pool, job, format, signal));
}

async function generateInFlow(pool: EnginePool, job: TtsJob, format: OutputFormat, signal?: AbortSignal): Promise<{ bytes: Uint8Array; seconds: number }> {
  const { segments, silences } = splitAtBreaks(job.items);
  // The silences count first: the speech may then fill what is left of the request's ceiling.
  const budget = new AudioBudget(job.maxAudioSeconds);
  budget.take(silences.reduce((a, b) => a + b, 0));
  const rendered = await Promise.all(segments.map((seg) => renderItems(pool, job.voice, seg, signal, budget)));
  const seconds = rendered.reduce((n, r) => n + (r ? r.samples.length / r.sampleRate : 0), 0) + silences.reduce((a, b) => a + b, 0);
  // Files keep the engine's own rate (Flite 16 kHz, eSpeak 22.05 kHz): resampling up would cost
  // time and add nothing; /tts/stream resamples to the rate the client asks for.
  const rate = rendered.find((r) => r !== null)?.sampleRate ?? 16000;
  // A WAV at the engine's rate is a header and the pieces: written here with the one copy that
  // joins them. A trip through the pool for it would put this request back in the queue, behind
  // other requests' chunks, for a memory copy.
  if (format === 'wav') {
    if (rendered.some((r) => r !== null && r.sampleRate !== rate)) throw new Error('segments rendered at different sample rates');
    return { bytes: encodeWavParts(documentPieces(rendered.map((r) => r?.samples ?? null), silences, rate), rate), seconds };
  }
  return { bytes: await finishDocument(pool, rendered, silences, rate, format, signal), seconds };
}
