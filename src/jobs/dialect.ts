// A job made through a compatible door keeps that door's dialect (decision #45): Deepgram's
// `callback` runs as a job whose result is Deepgram's answer and whose callback is Deepgram's, not
// Parla's webhook envelope. The dialects are edges (src/compat/...), on a floor above this one:
// the wiring (src/background-jobs.ts) hands them to the runner and the webhook dispatcher by name,
// and the job names its dialect in params.dialect (native jobs have none).

import type { Transcription } from '../stt/service.js';
import type { JobRecord } from './queue.js';

/** The request a finished job's callback sends (besides Parla's own webhook headers). */
export interface CallbackRequest {
  method: 'POST' | 'PUT';
  body: string;
  headers: Record<string, string>;
}

export interface JobDialect {
  /** The audio as the decoder must read it (e.g. a header before raw PCM); may throw an ApiError. */
  prepareAudio?(audio: Buffer, job: JobRecord): Buffer;
  /** A completed run's result: stored as the job's result, and what its callback carries. */
  render(t: Transcription, job: JobRecord, audio: Uint8Array): Promise<unknown>;
  /** The callback of a finished (completed or failed) job. */
  callback(job: JobRecord): CallbackRequest;
}

export type JobDialects = ReadonlyMap<string, JobDialect>;

/** The params key that names a job's dialect. */
export const DIALECT_PARAM = 'dialect';

/** The job's dialect; null for a native job; an Error for a dialect this node was not given. */
export function dialectOf(job: JobRecord, dialects: JobDialects | undefined): JobDialect | null {
  const name = job.params[DIALECT_PARAM];
  if (name === undefined || name === null) return null;
  const dialect = typeof name === 'string' ? dialects?.get(name) : undefined;
  if (!dialect) throw new Error(`the job is of the ${String(name).slice(0, 40)} dialect, which this node does not serve`);
  return dialect;
}
