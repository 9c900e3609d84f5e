// The main thread's side of one loaded recognition model: starts its worker thread (stt-host.ts),
// sends it requests and matches the replies. Unloading ends the thread, which frees the model.
// Requests waiting on one model are bounded: past `maxPending` calls in flight, a new recognition
// or stream is refused with SERVICE_OVERLOADED at once (the audio of streams already open is
// always taken: a stream is never cut off halfway for being one too many).

import type { RecognizedUtterance } from '../engine.js';
import { EngineOverloadedError } from '../../domain/overload.js';
import { ModelThread } from './model-thread.js';
import type { BatchOutcome, HostRequest, HostSetup } from './stt-host.js';

// From TypeScript sources the worker needs tsx registered first (stt-host-dev.mjs).
const entry = import.meta.url.endsWith('.ts') ? './stt-host-dev.mjs' : './stt-host.js';

type Op<R extends HostRequest['op']> = Omit<Extract<HostRequest, { op: R }>, 'id'>;

export class SttModelHost {
  private nextSid = 1;

  private constructor(
    private readonly thread: ModelThread,
    private readonly engineId: string,
    private readonly maxPending: number,
  ) {}

  /** Starts the model's thread and loads the model there; rejects with sherpa's message if it cannot. */
  static async start(setup: HostSetup, engineId: string, maxPending: number, onDeath: () => void): Promise<SttModelHost> {
    return new SttModelHost(
      await ModelThread.start(new URL(entry, import.meta.url), setup, engineId, 'model', onDeath),
      engineId,
      maxPending,
    );
  }

  private call<R extends HostRequest['op']>(req: Op<R>, move?: ArrayBuffer): Promise<unknown> {
    if (!this.thread.dead && (req.op === 'recognize' || req.op === 'open') && this.thread.inFlight >= this.maxPending) {
      return Promise.reject(
        new EngineOverloadedError(`Too many requests are waiting for the speech model ${this.engineId}; try again shortly.`, 1),
      );
    }
    return this.thread.request(req, move ? [move] : []);
  }

  /** Batch recognition; `language` '' lets a multilingual Whisper detect it; `task` translate: into English. */
  recognize(pcm: Int16Array, language: string, task: 'transcribe' | 'translate' = 'transcribe'): Promise<BatchOutcome> {
    const copy = pcm.slice();
    return this.call<'recognize'>({ op: 'recognize', samples: copy, language, task }, copy.buffer as ArrayBuffer) as Promise<BatchOutcome>;
  }

  async openStream(language: string): Promise<number> {
    const sid = this.nextSid++;
    await this.call<'open'>({ op: 'open', sid, language });
    return sid;
  }

  write(sid: number, pcm: Int16Array): Promise<void> {
    const copy = pcm.slice();
    return this.call<'write'>({ op: 'write', sid, samples: copy }, copy.buffer as ArrayBuffer) as Promise<void>;
  }

  partial(sid: number): Promise<RecognizedUtterance | null> {
    return this.call<'partial'>({ op: 'partial', sid }) as Promise<RecognizedUtterance | null>;
  }

  finalize(sid: number): Promise<RecognizedUtterance | null> {
    return this.call<'finalize'>({ op: 'finalize', sid }) as Promise<RecognizedUtterance | null>;
  }

  async closeStream(sid: number): Promise<void> {
    if (this.thread.dead) return;
    await this.call<'close'>({ op: 'close', sid });
  }

  /** Ends the thread: the model's memory goes with it. */
  stop(): Promise<void> {
    return this.thread.stop();
  }
}
