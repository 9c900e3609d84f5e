// One loaded sherpa-onnx model on a thread of its own, seen from the main thread: starts the thread
// and waits for its "ready", numbers each request and matches the reply, and fails every request in
// flight once the thread is gone. sherpa-onnx-node has no call that frees a model, so ending the
// thread is how a model is unloaded. Shared by the recognition and the voice hosts, which add only
// their own requests and their in-flight bounds.

import { Worker } from 'node:worker_threads';
import { EngineError } from '../engine.js';

/** What a host thread answers to a request with id `id`. */
export type ThreadReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void };

export class ModelThread {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private deadWhy: string | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly engineId: string,
    noun: string,
    onDeath: () => void,
  ) {
    worker.on('message', (m: ThreadReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new EngineError(engineId, m.message, false));
    });
    const die = (why: string) => {
      if (this.deadWhy) return;
      this.deadWhy = why;
      for (const p of this.pending.values()) p.reject(new EngineError(engineId, why, true));
      this.pending.clear();
      onDeath();
    };
    worker.on('error', (err) => die(`the ${noun}'s thread failed: ${err.message}`));
    worker.on('exit', () => die(`the ${noun} was unloaded`));
  }

  /** Starts the thread at `entry` and waits until it has loaded the model; rejects with sherpa's message if it cannot. */
  static start(entry: URL, workerData: unknown, engineId: string, noun: 'model' | 'voice', onDeath: () => void): Promise<ModelThread> {
    const worker = new Worker(entry, { workerData });
    return new Promise((resolve, reject) => {
      const fail = (err: Error) => reject(new EngineError(engineId, `could not load the ${noun}: ${err.message}`, true, { cause: err }));
      worker.once('error', fail);
      worker.once('message', (m: { ready: boolean; message?: string }) => {
        worker.off('error', fail);
        if (m.ready) {
          resolve(new ModelThread(worker, engineId, noun, onDeath));
        } else {
          void worker.terminate();
          reject(new EngineError(engineId, `could not load the ${noun}: ${m.message ?? 'unknown error'}`, false));
        }
      });
    });
  }

  /** Requests in flight (the hosts bound them). */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Why the thread is gone, or null while it serves. */
  get dead(): string | null {
    return this.deadWhy;
  }

  /** Sends `message` with a fresh id; `transfer` moves buffers instead of copying them. */
  request(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.deadWhy) return Promise.reject(new EngineError(this.engineId, this.deadWhy, true));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  /** Ends the thread: the model's memory goes with it. */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
