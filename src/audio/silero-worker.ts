// The Silero VAD's thread: each live stream's detector (and its recurrent state) lives here, keyed
// by stream id, so the synchronous native compute never runs on the event loop. Messages from one
// thread arrive in order, so a stream's chunks stay in order. Every message is answered (the
// thread is kept alive while one is unanswered: silero-thread.ts says why).
// A closed stream's detector is reset and kept for the next stream (up to SPARE per threshold):
// loading the model costs ~120 ms of this thread's CPU and 7.5 MB, and a stream of sockets opened
// and closed (issue 30's garbage sockets) made every other stream's detector wait behind those loads.

import { parentPort, workerData } from 'node:worker_threads';
import { SileroVad } from './silero-vad.js';

export type SileroRequest =
  | { op: 'open'; id: number; seq: number; threshold?: number }
  | { op: 'push'; id: number; seq: number; pcm: Int16Array }
  | { op: 'close'; id: number; seq: number }
  | { op: 'exit' };

export type SileroReply = { seq: number; frames?: Uint8Array } | { seq: number; error: string };

const SPARE = 4;
const model = (workerData as { model: string }).model;
const streams = new Map<number, { vad: SileroVad; key: string }>();
const spare = new Map<string, SileroVad[]>();

function open(m: { id: number; threshold?: number }): void {
  const key = String(m.threshold ?? '');
  const vad = spare.get(key)?.pop() ?? SileroVad.create(model, { threshold: m.threshold });
  streams.set(m.id, { vad, key });
}

function close(id: number): void {
  const s = streams.get(id);
  streams.delete(id);
  if (!s) return;
  const list = spare.get(s.key) ?? [];
  if (list.length >= SPARE) return;
  s.vad.reset();
  list.push(s.vad);
  spare.set(s.key, list);
}

function push(m: { id: number; pcm: Int16Array }): Uint8Array {
  const s = streams.get(m.id);
  if (!s) throw new Error(`no detector ${m.id}`);
  const f = new Float32Array(m.pcm.length);
  for (let i = 0; i < f.length; i++) f[i] = m.pcm[i]! / 32768;
  return Uint8Array.from(s.vad.process(f), (b) => (b ? 1 : 0));
}

parentPort!.on('message', (m: SileroRequest) => {
  // Ends from JavaScript, between two native calls: never while sherpa-onnx is inside one.
  if (m.op === 'exit') process.exit(0);
  try {
    if (m.op === 'open') open(m);
    else if (m.op === 'close') close(m.id);
    else {
      const frames = push(m);
      parentPort!.postMessage({ seq: m.seq, frames } satisfies SileroReply, [frames.buffer as ArrayBuffer]);
      return;
    }
    parentPort!.postMessage({ seq: m.seq } satisfies SileroReply);
  } catch (err) {
    parentPort!.postMessage({ seq: m.seq, error: (err as Error).message } satisfies SileroReply);
  }
});
