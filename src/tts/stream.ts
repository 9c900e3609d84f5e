// /tts/stream's pipeline: sentence groups are synthesized in order, at most one ahead of the one
// being sent, resampled to the requested rate and written as raw s16le PCM with backpressure. An
// engine that can hands a sentence over resampled in its worker (eSpeak, ~10-20 ms a sentence), so
// the first audio leaves after the first sentence, not the whole text. The client going away aborts
// synthesis promptly; only sentences whose audio was all written are billed (decisions #30).

import type { Writable } from 'node:stream';
import { WorkerPool } from '../workers/pool.js';
import { streamItems } from './speak-items.js';
import type { TtsJob } from './prepare.js';
import { groupIntoSentences } from './stream-plan.js';
import { AudioBudget } from './audio-limits.js';

export const STREAM_SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;

export interface StreamRun {
  /** Resolves once the first audio is ready to be written (or there was nothing to say). */
  firstChunk: Promise<void>;
  /** Resolves with the characters whose audio was written. */
  done: Promise<number>;
  charactersSent(): number;
}

function write(out: Writable, chunk: Buffer, signal: AbortSignal): Promise<void> {
  if (out.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      out.off('drain', onDrain);
      reject(signal.reason ?? new Error('aborted'));
    };
    const onDrain = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    out.once('drain', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** One sentence's audio as it arrives: pieces in order, then the end (or a failure). */
class SentenceAudio {
  private readonly pieces: Int16Array[] = [];
  private finished = false;
  private error: { err: unknown } | null = null;
  private wake: (() => void) | null = null;
  /** Settles when synthesis of this sentence is over (the pieces may not all be written yet). */
  readonly synthesized: Promise<void>;

  constructor(produce: (onAudio: (pcm: Int16Array) => void) => Promise<void>) {
    this.synthesized = produce((pcm) => {
      this.pieces.push(pcm);
      this.notify();
    }).then(
      () => {
        this.finished = true;
        this.notify();
      },
      (err: unknown) => {
        this.error = { err };
        this.notify();
        throw err;
      },
    );
    // Observed through next(); this copy must not count as unhandled.
    this.synthesized.catch(() => undefined);
  }

  /** The next piece, or null once the sentence is over; rejects if its synthesis failed. */
  async next(): Promise<Int16Array | null> {
    for (;;) {
      const piece = this.pieces.shift();
      if (piece) return piece;
      if (this.error) throw this.error.err;
      if (this.finished) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

export function streamAudio(pool: WorkerPool, job: TtsJob, sampleRate: number, out: Writable, signal: AbortSignal): StreamRun {
  const groups = groupIntoSentences(job.items);
  let sent = 0;
  let markFirst: () => void = () => undefined;
  let failFirst: (err: unknown) => void = () => undefined;
  const firstChunk = new Promise<void>((resolve, reject) => {
    markFirst = resolve;
    failFirst = reject;
  });
  // The caller awaits firstChunk; an unobserved rejection here must not crash the process.
  firstChunk.catch(() => undefined);

  const start = (i: number): SentenceAudio =>
    new SentenceAudio((onAudio) => streamItems(pool, job.voice, groups[i]!.items, sampleRate, onAudio, signal));

  // The request's ceiling on audio, counted on what is written (AUDIO_TOO_LONG ends the stream).
  const budget = new AudioBudget(job.maxAudioSeconds);
  // One flow for the pool's fair queue (see WorkerPool.inFlow).
  const done = WorkerPool.inFlow(async () => {
    try {
      let current = groups.length > 0 ? start(0) : null;
      for (let i = 0; current; i++) {
        // The next sentence starts once this one is synthesized, while its audio is still being
        // sent: at most one sentence ahead of the client.
        const upcoming =
          i + 1 < groups.length ? current.synthesized.then(() => (signal.aborted ? null : start(i + 1))) : Promise.resolve(null);
        upcoming.catch(() => undefined);
        for (let piece = await current.next(); piece; piece = await current.next()) {
          if (signal.aborted) throw signal.reason ?? new Error('aborted');
          budget.take(piece.length / sampleRate);
          // The response starts with the first audio; only then is anyone reading `out`.
          markFirst();
          await write(out, Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength), signal);
        }
        if (signal.aborted) throw signal.reason ?? new Error('aborted');
        markFirst();
        // Billed once all its audio is written (decision #30): a sentence leaves in ~0.1 s pieces
        // (decision #100), and one the client left in the middle of was not sent.
        sent += groups[i]!.characters;
        current = await upcoming;
      }
      markFirst();
      return sent;
    } catch (err) {
      failFirst(err);
      throw err;
    }
  });
  // The route observes `done` once the first chunk is out; until then a failure is reported
  // through firstChunk, so this rejection must not count as unhandled.
  done.catch(() => undefined);
  return { firstChunk, done, charactersSent: () => sent };
}
