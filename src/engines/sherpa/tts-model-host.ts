// The main thread's side of one loaded sherpa-onnx voice: starts its thread (tts-host.ts), sends
// it syntheses and matches the replies; unloading ends the thread. Past `maxPending` syntheses in
// flight on the voice, a new one is refused with SERVICE_OVERLOADED at once.

import { EngineOverloadedError } from '../../domain/overload.js';
import { ModelThread } from './model-thread.js';
import type { SherpaTtsModel } from './models.js';
import type { SherpaTtsTask } from './sherpa-tts-worker.js';

const entry = import.meta.url.endsWith('.ts') ? './tts-host-dev.mjs' : './tts-host.js';

export class TtsModelHost {
  private constructor(
    private readonly thread: ModelThread,
    private readonly maxPending: number,
  ) {}

  static async start(model: SherpaTtsModel, engineId: string, maxPending: number, onDeath: () => void): Promise<TtsModelHost> {
    return new TtsModelHost(await ModelThread.start(new URL(entry, import.meta.url), model, engineId, 'voice', onDeath), maxPending);
  }

  synthesize(task: Omit<SherpaTtsTask, 'model'>): Promise<{ samples: Int16Array; sampleRate: number }> {
    if (!this.thread.dead && this.thread.inFlight >= this.maxPending) {
      return Promise.reject(new EngineOverloadedError('Too many syntheses are waiting for this voice; try again shortly.', 1));
    }
    return this.thread.request({ task }) as Promise<{ samples: Int16Array; sampleRate: number }>;
  }

  stop(): Promise<void> {
    return this.thread.stop();
  }
}
