// /tts/stream's pipeline: sentence groups are synthesized one ahead of the one being sent, each
// resampled to the requested rate and written as raw s16le PCM with backpressure. The client going
// away aborts synthesis promptly; only sentences whose audio was written are billed (decisions #30).

import type { Writable } from 'node:stream';
import type { EnginePool } from '../engines/pool.js';
import { resampleForOutput } from './finish.js';
import { renderItems } from './render.js';
import type { TtsJob } from './prepare.js';
import { groupIntoSentences } from './stream-plan.js';
import type { PcmAudio } from '../engines/engine.js';

export const STREAM_SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;

export interface StreamRun {
  /** Resolves once the first sentence's audio is ready to be written (or there was nothing to say). */
  firstChunk: Promise<void>;
  /** Resolves with the characters whose audio was written. */
  done: Promise<number>;
  charactersSent(): number;
}

function write(out: Writable, chunk: Buffer, signal: AbortSignal): Promise<void> {
  if (out.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => { out.off('drain', onDrain); reject(signal.reason ?? new Error('aborted')); };
    const onDrain = () => { signal.removeEventListener('abort', onAbort); resolve(); };
    out.once('drain', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function streamAudio(pool: EnginePool, job: TtsJob, sampleRate: number, out: Writable, signal: AbortSignal): StreamRun {
  const groups = groupIntoSentences(job.items);
  let sent = 0;
  let markFirst: () => void = () => undefined;
  let failFirst: (err: unknown) => void = () => undefined;
  const firstChunk = new Promise<void>((resolve, reject) => { markFirst = resolve; failFirst = reject; });
  // The caller awaits firstChunk; an unobserved rejection here must not crash the process.
  firstChunk.catch(() => undefined);

  const render = async (i: number): Promise<Int16Array | null> => {
    const group = groups[i];
    if (!group) return null;
    const pcm: PcmAudio | null = await renderItems(pool, job.voice, group.items, signal);
    if (!pcm) return new Int16Array(0);
    return resampleForOutput(pool, pcm, sampleRate, signal);
  };

  const done = (async () => {
    try {
      let next = render(0);
      for (let i = 0; i < groups.length; i++) {
        const current = await next;
        // Start the following sentence while this one is being sent.
        next = render(i + 1);
        next.catch(() => undefined);
        if (signal.aborted) throw signal.reason ?? new Error('aborted');
        // The response starts once the first sentence is ready; only then is anyone reading `out`.
        if (i === 0) markFirst();
        if (current && current.length > 0) {
          await write(out, Buffer.from(current.buffer, current.byteOffset, current.byteLength), signal);
        }
        sent += groups[i]!.characters;
      }
      markFirst();
      return sent;
    } catch (err) {
      failFirst(err);
      throw err;
    }
  })();
  // The route observes `done` once the first chunk is out; until then a failure is reported
  // through firstChunk, so this rejection must not count as unhandled.
  done.catch(() => undefined);
  return { firstChunk, done, charactersSent: () => sent };
}
