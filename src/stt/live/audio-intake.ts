// A live stream's audio intake: binary frames in the stream's encoding in, 16 kHz mono samples out
// in arrival order, with the length of each piece as received (what is billed). linear16 frames may
// split a sample across frames (the odd byte waits for the next frame); another rate is resampled on
// the shared resampling thread (thread-resampler.ts); Opus is decoded by its own ffmpeg
// (opus-decoder.ts). The session (session.ts) queues what comes out; this part knows nothing of
// recognizers, credits or messages.

import type { RealtimeParams } from './params.js';
import { ThreadResampler } from './thread-resampler.js';
import { ALL_CONTAINERS, OPUS_CONTAINERS, OpusDecoder } from './opus-decoder.js';
import { sharedSpawner } from '../../process/spawner.js';

export interface IntakeSink {
  /**
   * The next piece of 16 kHz audio (a promise while its resampling runs on the thread; a rejected
   * one is seen where it is awaited) and its length in seconds as received.
   */
  audio(at16k: Int16Array | Promise<Int16Array>, seconds: number): void;
  /** The bytes cannot be decoded (not Opus in Ogg/WebM for encoding=opus, no known container for `container`); called at most once. */
  invalid(message: string): void;
}

export class AudioIntake {
  private readonly resampler: ThreadResampler | null;
  private readonly opus: OpusDecoder | null;
  private carryByte: number | null = null;

  constructor(
    private readonly params: Pick<RealtimeParams, 'encoding' | 'sampleRate'>,
    private readonly sink: IntakeSink,
  ) {
    const linear = params.encoding === 'linear16';
    this.resampler = !linear || params.sampleRate === 16000 ? null : new ThreadResampler(params.sampleRate, 16000);
    // Decoded audio is billed by its decoded length, whatever the container's bytes weigh.
    const containers = params.encoding === 'container' ? ALL_CONTAINERS : OPUS_CONTAINERS;
    this.opus = linear
      ? null
      : new OpusDecoder(
          (pcm) => sink.audio(pcm, pcm.length / 16000),
          (message) => sink.invalid(message),
          sharedSpawner(),
          containers,
        );
  }

  /** A binary frame of audio in the stream's encoding. */
  write(bytes: Buffer): void {
    if (this.opus) return this.opus.write(bytes);
    let buf = bytes;
    if (this.carryByte !== null) {
      buf = Buffer.concat([Buffer.from([this.carryByte]), bytes]);
      this.carryByte = null;
    }
    if (buf.length % 2 === 1) {
      this.carryByte = buf[buf.length - 1]!;
      buf = buf.subarray(0, buf.length - 1);
    }
    if (buf.length === 0) return;
    const pcm = new Int16Array(buf.length / 2);
    for (let i = 0; i < pcm.length; i++) pcm[i] = buf.readInt16LE(i * 2);
    const seconds = pcm.length / this.params.sampleRate;
    // Resampling starts now on its thread; the session's queue picks the result up in order.
    const at16k = this.resampler ? this.resampler.push(pcm) : pcm;
    // A failure is seen where the queue awaits it; until then it must not count as unhandled.
    if (at16k instanceof Promise) at16k.catch(() => undefined);
    this.sink.audio(at16k, seconds);
  }

  /**
   * The end of the input: encoded audio already received is decoded and handed to the sink, unless
   * nobody listens any more (`drop`) or the input was undecodable.
   */
  async finish(drop: boolean): Promise<void> {
    if (!this.opus) return;
    if (drop || this.opus.failed) this.opus.kill();
    else await this.opus.finish();
  }

  /** The resampler's last samples (empty when there is no resampler); call once, after finish(). */
  async tail(): Promise<Int16Array> {
    return this.resampler ? this.resampler.flush() : new Int16Array(0);
  }

  close(): void {
    this.resampler?.close();
    this.opus?.kill();
  }
}
