// A stream resampler whose work runs on the shared resampling thread (dsp-worker.ts), so the
// event loop only moves buffers. Results come back in the order the chunks were pushed.

import { Worker } from 'node:worker_threads';
import type { DspReply, DspRequest } from './dsp-worker.js';

const workerFile = import.meta.url.endsWith('.ts') ? './dsp-worker-dev.mjs' : './dsp-worker.js';

let worker: Worker | null = null;
let nextId = 0;
let nextSeq = 0;
const waiting = new Map<number, { resolve: (pcm: Int16Array) => void; reject: (err: Error) => void }>();

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL(workerFile, import.meta.url));
  w.on('message', (m: DspReply) => {
    const p = waiting.get(m.seq);
    waiting.delete(m.seq);
    if ('error' in m) p?.reject(new Error(m.error));
    else p?.resolve(m.pcm);
  });
  const fail = (err: Error) => {
    if (worker === w) worker = null;
    for (const p of waiting.values()) p.reject(err);
    waiting.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`resampling thread exited (${code})`)));
  // The thread never keeps the process alive on its own (after the listeners, which would ref it).
  w.unref();
  worker = w;
  return w;
}

function request(m: DspRequest & { seq: number }, transfer: ArrayBuffer[] = []): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    waiting.set(m.seq, { resolve, reject });
    thread().postMessage(m, transfer);
  });
}

export class ThreadResampler {
  private readonly id = ++nextId;

  constructor(from: number, to: number) {
    thread().postMessage({ op: 'open', id: this.id, from, to } satisfies DspRequest);
  }

  /** Resamples the next chunk (the buffer is handed over to the thread). */
  push(pcm: Int16Array): Promise<Int16Array> {
    const own = pcm.byteOffset === 0 && pcm.byteLength === pcm.buffer.byteLength ? pcm : pcm.slice();
    return request({ op: 'push', id: this.id, seq: ++nextSeq, pcm: own }, [own.buffer as ArrayBuffer]);
  }

  /** The filter's tail; the resampler is gone afterwards. */
  flush(): Promise<Int16Array> {
    return request({ op: 'flush', id: this.id, seq: ++nextSeq });
  }

  close(): void {
    worker?.postMessage({ op: 'close', id: this.id } satisfies DspRequest);
  }
}
