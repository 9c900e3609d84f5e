// The real-time streams' resamplers, on a worker thread: windowed-sinc resampling of 48 kHz
// audio costs tens of ms per audio second, too much for the event loop with many streams open.
// Each stream's StreamResampler (and so its filter history) lives here, keyed by stream id;
// messages from one thread arrive in order, so a stream's chunks stay in order.

import { parentPort } from 'node:worker_threads';
import { StreamResampler } from '../../audio/resample.js';
import { float32ToInt16, int16ToFloat32 } from '../../audio/pcm.js';

export type DspRequest =
  | { op: 'open'; id: number; from: number; to: number }
  | { op: 'push'; id: number; seq: number; pcm: Int16Array }
  | { op: 'flush'; id: number; seq: number }
  | { op: 'close'; id: number };

export type DspReply = { seq: number; pcm: Int16Array } | { seq: number; error: string };

const streams = new Map<number, StreamResampler>();

function reply(seq: number, out: Float32Array): void {
  const pcm = float32ToInt16(out);
  parentPort!.postMessage({ seq, pcm } satisfies DspReply, [pcm.buffer as ArrayBuffer]);
}

parentPort!.on('message', (m: DspRequest) => {
  if (m.op === 'open') {
    streams.set(m.id, new StreamResampler(m.from, m.to));
    return;
  }
  if (m.op === 'close') {
    streams.delete(m.id);
    return;
  }
  const r = streams.get(m.id);
  if (!r) {
    parentPort!.postMessage({ seq: m.seq, error: `no resampler ${m.id}` } satisfies DspReply);
    return;
  }
  if (m.op === 'push') reply(m.seq, r.push(int16ToFloat32(m.pcm)));
  else {
    streams.delete(m.id);
    reply(m.seq, r.flush());
  }
});
