// A Silero VAD whose work runs on its own thread (silero-worker.ts), so the event loop only moves
// buffers. Same 20 ms frames as vad.ts; results come back in the order the chunks were pushed.
// The thread holds the process open while any message to it is unanswered, opening and closing a
// detector included: a process that ended while the thread was inside sherpa-onnx (loading a
// detector's model) had the thread terminated there, sherpa-onnx's binding threw a C++ exception it
// could not hand to JavaScript any more, and the process aborted at exit ("terminate called after
// throwing an instance of 'Napi::Error'", issue 30). closeSileroThread() ends it from inside, between
// two native calls, for a process that is about to call process.exit().

import { Worker } from 'node:worker_threads';
import type { SileroReply, SileroRequest } from './silero-worker.js';

const workerFile = import.meta.url.endsWith('.ts') ? './silero-worker-dev.mjs' : './silero-worker.js';

let worker: Worker | null = null;
let nextId = 0;
let nextSeq = 0;
/** A thread asked to end: kept referenced until it has. */
let ending: Worker | null = null;
const waiting = new Map<number, { resolve: (f: boolean[]) => void; reject: (err: Error) => void }>();

function thread(model: string): Worker {
  if (worker) return worker;
  const w = new Worker(new URL(workerFile, import.meta.url), { workerData: { model } });
  w.on('message', (m: SileroReply) => {
    const p = waiting.get(m.seq);
    waiting.delete(m.seq);
    if ('error' in m) p?.reject(new Error(m.error));
    else p?.resolve(m.frames ? Array.from(m.frames, (b) => b === 1) : []);
    if (waiting.size === 0 && ending !== w) w.unref();
  });
  const fail = (err: Error) => {
    if (worker === w) worker = null;
    for (const p of waiting.values()) p.reject(err);
    waiting.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`Silero VAD thread exited (${code})`)));
  // Kept alive only while a reply is awaited: an idle thread never holds the process open.
  w.unref();
  worker = w;
  return w;
}

/** Sends a message that is answered; the thread holds the process open until it is. */
function send(w: Worker, m: SileroRequest & { seq: number }, transfer?: ArrayBuffer[]): Promise<boolean[]> {
  return new Promise((resolve, reject) => {
    waiting.set(m.seq, { resolve, reject });
    w.ref();
    w.postMessage(m, transfer);
  });
}

export class ThreadSileroVad {
  private readonly id = ++nextId;
  private readonly w: Worker;

  constructor(model: string, threshold?: number) {
    this.w = thread(model);
    // A detector that fails to open fails this stream's first process() ("no detector").
    send(this.w, { op: 'open', id: this.id, seq: ++nextSeq, ...(threshold === undefined ? {} : { threshold }) }).catch(() => undefined);
  }

  /** The 20 ms frame decisions the chunk completes (the chunk is copied to the thread). */
  process(pcm: Int16Array): Promise<boolean[]> {
    return send(this.w, { op: 'push', id: this.id, seq: ++nextSeq, pcm });
  }

  free(): void {
    send(this.w, { op: 'close', id: this.id, seq: ++nextSeq }).catch(() => undefined);
  }
}

/** Ends the thread (if it runs) once it has answered what it was sent; its detectors go with it. */
export async function closeSileroThread(): Promise<void> {
  const w = worker;
  if (!w) return;
  worker = null;
  const exited = new Promise<void>((r) => w.once('exit', () => r()));
  ending = w;
  w.ref();
  w.postMessage({ op: 'exit' } satisfies SileroRequest);
  await exited;
}
