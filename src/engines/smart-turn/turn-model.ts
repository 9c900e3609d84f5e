// The operator's turn model (PARLA_TURN_MODEL=<name of an installed turn model>, docs/realtime.md
// "Turns"), on one thread for the process. Bounded: at most MAX_WAITING questions are open at a
// time; past that a question is refused at once and the turn layer decides as it does without a
// model, so a slow model delays no turn by more than its own answer. Chosen once per process.

import { Worker } from 'node:worker_threads';
import { verifiedModels } from '../../models/store.js';
import type { TurnReply, TurnRequest } from './turn-worker.js';

const workerFile = import.meta.url.endsWith('.ts') ? './turn-worker-dev.mjs' : './turn-worker.js';
/** Open questions over all streams; one per stream in a pause, so this many pausing at once. */
export const MAX_WAITING = 8;

export interface TurnModel {
  readonly name: string;
  /** The probability (0-1) that the speaker is done, from the last 8 s of 16 kHz audio (-1..1). */
  completion(audio: Float32Array): Promise<number>;
}

class ThreadTurnModel implements TurnModel {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (p: number) => void; reject: (err: Error) => void }>();

  constructor(
    readonly name: string,
    private readonly file: string,
  ) {
    // Started (and the model loaded) now rather than at the first pause: that takes a second or
    // more, past the longest a pause waits for an answer.
    this.thread();
  }

  completion(audio: Float32Array): Promise<number> {
    if (this.waiting.size >= MAX_WAITING) return Promise.reject(new Error('the turn model is busy'));
    const w = this.thread();
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      w.ref();
      w.postMessage({ seq, audio } satisfies TurnRequest, [audio.buffer as ArrayBuffer]);
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL(workerFile, import.meta.url), { workerData: { model: this.file } });
    w.on('message', (m: TurnReply) => {
      const p = this.waiting.get(m.seq);
      this.waiting.delete(m.seq);
      if ('error' in m) p?.reject(new Error(m.error));
      else p?.resolve(m.probability);
      if (this.waiting.size === 0) w.unref();
    });
    const fail = (err: Error) => {
      if (this.worker === w) this.worker = null;
      for (const p of this.waiting.values()) p.reject(err);
      this.waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the turn-model thread exited (${code})`)));
    // Kept alive only while an answer is awaited: an idle thread never holds the process open.
    w.unref();
    this.worker = w;
    return w;
  }
}

let chosen: TurnModel | null = null;
let chosenKey = '';

/** The process's turn model (set by useTurnModel when the services start), or null. */
export function activeTurnModel(): TurnModel | null {
  return chosen;
}

/**
 * Makes the installed turn model `name` (PARLA_TURN_MODEL) the process's, if it passed its loading
 * check; otherwise none, and one line in the log says why: turns are then decided without one.
 */
export function useTurnModel(modelsDir: string, name: string | null): TurnModel | null {
  const key = `${modelsDir}\0${name ?? ''}`;
  if (key === chosenKey) return chosen;
  chosenKey = key;
  if (!name) return (chosen = null);
  let model: TurnModel | null = null;
  let why: string | null = null;
  try {
    const m = verifiedModels(modelsDir).find((r) => r.name === name);
    if (!m) why = 'no verified model of that name (parla models list)';
    else if (m.kind !== 'turn' || !m.files.model) why = `it is a ${m.kind} model, not a turn model`;
    else model = new ThreadTurnModel(name, `${m.dir}/${m.files.model}`);
  } catch (err) {
    why = `the models manifest cannot be read: ${(err as Error).message}`;
  }
  if (model) console.info(`turns: the turn model ${name} weighs each pause`);
  else console.warn(`turns: PARLA_TURN_MODEL=${name} is not used: ${why}; pauses are weighed without a model`);
  return (chosen = model);
}
