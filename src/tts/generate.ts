// /tts/generate's pipeline (docs/interface.md, break tag rules): the text is split at break tags, the
// segments are synthesized in parallel on the worker pool, and one worker task joins them with
// silences of the requested lengths, resamples once and encodes (a WAV is only a header and the
// pieces, streamed without the extra pool task). Any segment failing after its
// retries fails the whole request: incomplete audio is never returned.

import { WorkerPool } from '../workers/pool.js';
import type { Readable } from 'node:stream';
import { finishDocument } from './finish.js';
import { documentPieces } from './finish-task.js';
import { splitAtBreaks } from './markup.js';
import type { TtsJob } from './prepare.js';
import { renderItems } from './speak-items.js';
import { wavStream } from '../audio/wav.js';
import { AudioBudget } from './audio-limits.js';

export const OUTPUT_FORMATS = ['wav', 'mp3', 'ogg', 'flac'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The answer's body (a file in memory, or a WAV streamed from its pieces) and its length. */
export interface GeneratedAudio {
  body: Uint8Array | Readable;
  byteLength: number;
  seconds: number;
}

export async function generateAudio(pool: WorkerPool, job: TtsJob, format: OutputFormat, signal?: AbortSignal): Promise<GeneratedAudio> {
  // One flow: this request's chunks take turns with other requests' work in the pool's queue.
  return WorkerPool.inFlow(() => generateInFlow(pool, job, format, signal));
}

async function generateInFlow(pool: WorkerPool, job: TtsJob, format: OutputFormat, signal?: AbortSignal): Promise<GeneratedAudio> {
  const { segments, silences } = splitAtBreaks(job.items);
  // The silences count first: the speech may then fill what is left of the request's ceiling.
  const budget = new AudioBudget(job.maxAudioSeconds);
  budget.take(silences.reduce((a, b) => a + b, 0));
  const rendered = await Promise.all(segments.map((seg) => renderItems(pool, job.voice, seg, signal, budget)));
  const seconds = rendered.reduce((n, r) => n + (r ? r.samples.length / r.sampleRate : 0), 0) + silences.reduce((a, b) => a + b, 0);
  // Files keep the engine's own rate (Flite 16 kHz, eSpeak 22.05 kHz): resampling up would cost
  // time and add nothing; /tts/stream resamples to the rate the client asks for.
  const rate = rendered.find((r) => r !== null)?.sampleRate ?? 16000;
  // A WAV at the engine's rate is a header and the pieces: streamed from them as they are, with no
  // copy (a trip through the pool would put this request back in the queue, behind other requests'
  // chunks, for a memory copy) and no buffer the size of the file, silences included.
  if (format === 'wav') {
    if (rendered.some((r) => r !== null && r.sampleRate !== rate)) throw new Error('segments rendered at different sample rates');
    const wav = wavStream(
      documentPieces(
        rendered.map((r) => r?.samples ?? null),
        silences,
        rate,
      ),
      rate,
    );
    return { ...wav, seconds };
  }
  const bytes = await finishDocument(pool, rendered, silences, rate, format, signal);
  return { body: bytes, byteLength: bytes.byteLength, seconds };
}
