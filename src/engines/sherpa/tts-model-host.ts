// The main thread's side of one loaded sherpa-onnx voice: starts its thread (tts-host.ts), sends
// it syntheses and matches the replies; unloading ends the thread. Past `maxPending` syntheses in
// flight on the voice, a new one is refused with SERVICE_OVERLOADED at once.

import { Worker } from 'node:worker_threads';
import { EngineError, EngineOverloadedError } from '../engine.js';
import type { SherpaTtsModel } from './models.js';
import type { SherpaTtsTask } from './sherpa-tts-worker.js';
import type { TtsHostReply } from './tts-host.js';

const entry = import.meta.url.endsWith('.ts') ? './tts-host-dev.mjs' : './tts-host.js';

export class TtsModelHost {
  private readonly pending = new Map<number, { resolve: (v: { samples: Int16Array; sampleRate: number }) => void; reject: (e: unknown) => void }>();
  private nextId = 1;
  private dead: string | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly engineId: string,
    private readonly maxPending: number,
    onDeath: () => void,
  ) {
    worker.on('message', (m: TtsHostReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(m.message));
    });
    const die = (why: string) => {
      if (this.dead) return;
      this.dead = why;
      for (const p of this.pending.values()) p.reject(new EngineError(engineId, why, true));
      this.pending.clear();
      onDeath();
    };
    worker.on('error', (err) => die(`the voice's thread failed: ${err.message}`));
    worker.on('exit', () => die('the voice was unloaded'));
  }

  static start(model: SherpaTtsModel, engineId: string, maxPending: number, onDeath: () => void): Promise<TtsModelHost> {
    const worker = new Worker(new URL(entry, import.meta.url), { workerData: model });
    return new Promise((resolve, reject) => {
      const fail = (err: Error) => reject(err);
      worker.once('error', fail);
      worker.once('message', (m: { ready: boolean; message?: string }) => {
        worker.off('error', fail);
        if (m.ready) {
          resolve(new TtsModelHost(worker, engineId, maxPending, onDeath));
        } else {
          void worker.terminate();
          reject(new Error(m.message ?? 'unknown error'));
        }
      });
    });
  }

  synthesize(task: Omit<SherpaTtsTask, 'model'>): Promise<{ samples: Int16Array; sampleRate: number }> {
    if (this.dead) return Promise.reject(new EngineError(this.engineId, this.dead, true));
    if (this.pending.size >= this.maxPending) {
      return Promise.reject(new EngineOverloadedError('Too many syntheses are waiting for this voice; try again shortly.', 1));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, task });
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}
