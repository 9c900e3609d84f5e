// The main thread's side of one loaded recognition model: starts its worker thread (stt-host.ts),
// sends it requests and matches the replies. Unloading ends the thread, which frees the model.
// Requests waiting on one model are bounded: past `maxPending` calls in flight, a new recognition
// or stream is refused with SERVICE_OVERLOADED at once (the audio of streams already open is
// always taken: a stream is never cut off halfway for being one too many).

import { Worker } from 'node:worker_threads';
import { EngineError, type RecognizedUtterance, EngineOverloadedError } from '../engine.js';
import type { BatchOutcome, HostReply, HostRequest, HostSetup } from './stt-host.js';

// From TypeScript sources the worker needs tsx registered first (stt-host-dev.mjs).
const entry = import.meta.url.endsWith('.ts') ? './stt-host-dev.mjs' : './stt-host.js';

type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void };
type Op<R extends HostRequest['op']> = Omit<Extract<HostRequest, { op: R }>, 'id'>;

export class SttModelHost {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private nextSid = 1;
  private dead: string | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly engineId: string,
    private readonly maxPending: number,
    onDeath: () => void,
  ) {
    worker.on('message', (m: HostReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new EngineError(engineId, m.message, false));
    });
    const die = (why: string) => {
      if (this.dead) return;
      this.dead = why;
      for (const p of this.pending.values()) p.reject(new EngineError(engineId, why, true));
      this.pending.clear();
      onDeath();
    };
    worker.on('error', (err) => die(`the model's thread failed: ${err.message}`));
    worker.on('exit', () => die('the model was unloaded'));
  }

  /** Starts the model's thread and loads the model there; rejects with sherpa's message if it cannot. */
  static start(setup: HostSetup, engineId: string, maxPending: number, onDeath: () => void): Promise<SttModelHost> {
    const worker = new Worker(new URL(entry, import.meta.url), { workerData: setup });
    return new Promise((resolve, reject) => {
      const fail = (err: Error) => reject(new EngineError(engineId, `could not load the model: ${err.message}`, true, { cause: err }));
      worker.once('error', fail);
      worker.once('message', (m: { ready: boolean; message?: string }) => {
        worker.off('error', fail);
        if (m.ready) {
          resolve(new SttModelHost(worker, engineId, maxPending, onDeath));
        } else {
          void worker.terminate();
          reject(new EngineError(engineId, `could not load the model: ${m.message ?? 'unknown error'}`, false));
        }
      });
    });
  }

  private call<R extends HostRequest['op']>(req: Op<R>, move?: ArrayBuffer): Promise<unknown> {
    if (this.dead) return Promise.reject(new EngineError(this.engineId, this.dead, true));
    if ((req.op === 'recognize' || req.op === 'open') && this.pending.size >= this.maxPending) {
      return Promise.reject(new EngineOverloadedError(`Too many requests are waiting for the speech model ${this.engineId}; try again shortly.`, 1));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id }, move ? [move] : []);
    });
  }

  /** Batch recognition; `language` '' lets a multilingual Whisper detect it. */
  recognize(pcm: Int16Array, language: string): Promise<BatchOutcome> {
    const copy = pcm.slice();
    return this.call<'recognize'>({ op: 'recognize', samples: copy, language }, copy.buffer as ArrayBuffer) as Promise<BatchOutcome>;
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
    if (this.dead) return;
    await this.call<'close'>({ op: 'close', sid });
  }

  /** Ends the thread: the model's memory goes with it. */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
