// Live delivery of synthesized audio from a worker thread (for /tts/stream): pieces resampled to the
// stream's rate and posted on a MessagePort as they come (`{ pcm }`, then `{ end: true }`). Used by
// the engines whose audio can leave before the sentence is whole (eSpeak, Flite).

import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { float32ToInt16, int16ToFloat32 } from './pcm.js';
import { StreamResampler } from './resample.js';

/** Where a live task posts its audio, and at what rate. */
export interface LiveDelivery {
  port: MessagePort;
  outputRate: number;
}

/** Messages on a live task's port. */
export type LiveAudioMessage = { pcm: Int16Array } | { end: true };

/** Posts resampled audio on a live task's port as it comes. */
export class LiveSender {
  private readonly resampler: StreamResampler | null;

  constructor(
    private readonly port: MessagePort,
    inputRate: number,
    outputRate: number,
  ) {
    this.resampler = inputRate === outputRate ? null : new StreamResampler(inputRate, outputRate);
  }

  push(samples: Int16Array): void {
    this.post(this.resampler ? float32ToInt16(this.resampler.push(int16ToFloat32(samples))) : samples.slice());
  }

  end(): void {
    if (this.resampler) this.post(float32ToInt16(this.resampler.flush()));
    this.port.postMessage({ end: true } satisfies LiveAudioMessage);
  }

  private post(pcm: Int16Array): void {
    if (pcm.length > 0) this.port.postMessage({ pcm } satisfies LiveAudioMessage, [pcm.buffer as ArrayBuffer]);
  }
}

/**
 * Posts audio synthesized as a whole on a live task's port, resampled ~100 ms at a time: the first
 * piece is on its way while the rest is resampled (~5 ms per audio second).
 */
export function postWhole(live: LiveDelivery, samples: Int16Array, sampleRate: number): void {
  const sender = new LiveSender(live.port, sampleRate, live.outputRate);
  const slice = Math.round(sampleRate / 10);
  for (let at = 0; at < samples.length; at += slice) sender.push(samples.subarray(at, at + slice));
  sender.end();
}

/**
 * The caller's side of a live task: `port` goes to the task (its `live.port`, transferred), each
 * piece goes to `onAudio` (none once `signal` has aborted), `ended` settles at `{ end: true }`
 * (which may come after the task's own result: separate channels), and `close()` frees the channel.
 */
export function liveChannel(
  onAudio: (pcm: Int16Array) => void,
  signal?: AbortSignal,
): { port: MessagePort; ended: Promise<void>; close(): void } {
  const { port1, port2 } = new MessageChannel();
  let end: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (end = resolve));
  port1.on('message', (m: LiveAudioMessage) => {
    if ('pcm' in m) {
      if (!signal?.aborted) onAudio(m.pcm);
    } else end();
  });
  return { port: port2, ended, close: () => port1.close() };
}
