// Wyoming audio is raw little-endian PCM described by rate, width (bytes per sample) and channels
// on each audio event. The recognizers take 16 kHz mono 16-bit, so what arrives is checked here,
// mixed down to mono and resampled (Parla's resampler, on its thread), chunk by chunk, keeping
// the resampler's state across chunks so there are no seams.

import { ThreadResampler } from '../stt/live/thread-resampler.js';

export interface AudioFormat {
  rate: number;
  width: number;
  channels: number;
}

export class AudioFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AudioFormatError';
  }
}

export const MIN_RATE = 1000;
export const MAX_RATE = 384_000;
export const MAX_CHANNELS = 32;

/** The format an audio event declares, from its data (fields missing fall back to `fallback`). */
export function readFormat(data: Record<string, unknown>, fallback: AudioFormat | null): AudioFormat {
  const pick = (field: keyof AudioFormat): number => {
    const v = data[field];
    if (v === undefined || v === null) {
      if (fallback) return fallback[field];
      throw new AudioFormatError(`audio ${field} is missing.`);
    }
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new AudioFormatError(`audio ${field} must be a whole number.`);
    return v;
  };
  const f = { rate: pick('rate'), width: pick('width'), channels: pick('channels') };
  if (f.rate < MIN_RATE || f.rate > MAX_RATE) throw new AudioFormatError(`audio rate ${f.rate} is outside ${MIN_RATE}-${MAX_RATE} Hz.`);
  if (![1, 2, 3, 4].includes(f.width)) throw new AudioFormatError(`audio width ${f.width} is not 1, 2, 3 or 4 bytes per sample.`);
  if (f.channels < 1 || f.channels > MAX_CHANNELS) throw new AudioFormatError(`audio channels ${f.channels} is outside 1-${MAX_CHANNELS}.`);
  return f;
}

/**
 * Interleaved PCM of `f` to mono 16-bit: channels averaged, wider samples shifted down, 8-bit up.
 * Samples are signed (audioop's convention, also for width 1). 16-bit mono (the usual format) is
 * a plain copy.
 */
export function toMonoInt16(bytes: Buffer, f: AudioFormat): Int16Array {
  const frame = f.width * f.channels;
  if (bytes.length % frame !== 0)
    throw new AudioFormatError(
      `an audio chunk of ${bytes.length} bytes is not whole frames of ${f.channels} channel(s) x ${f.width} byte(s).`,
    );
  const frames = bytes.length / frame;
  const out = new Int16Array(frames);
  if (f.width === 2 && f.channels === 1) {
    new Uint8Array(out.buffer).set(bytes);
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { width, channels } = f;
  for (let i = 0, o = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++, o += width) {
      if (width === 2) sum += view.getInt16(o, true);
      else if (width === 1) sum += view.getInt8(o) * 256;
      else if (width === 4) sum += view.getInt32(o, true) / 65536;
      else sum += ((view.getInt8(o + 2) << 16) | view.getUint16(o, true)) / 256;
    }
    out[i] = Math.max(-32768, Math.min(32767, Math.round(sum / channels)));
  }
  return out;
}

/**
 * Turns one utterance's chunks into 16 kHz mono 16-bit as they arrive, whatever formats they come
 * in, for the live recognizer (src/wyoming/listen.ts). The mix-down is a cheap pass here;
 * resampling runs on the shared resampling thread (as for the real-time socket), so a large chunk
 * does not hold the event loop, and keeps its state across chunks so there are no seams. Counts
 * what it took against the utterance's longest length. Call push() one at a time.
 */
export class Stream16k {
  /** Input samples taken (at 16 kHz), for the length check before the resampled audio is back. */
  private planned = 0;
  private resampler: { rate: number; thread: ThreadResampler } | null = null;

  constructor(private readonly maxSamples: number) {}

  /** The chunk at 16 kHz (with a rate change, the old rate's tail first); null when the utterance would be longer than allowed (nothing is taken). */
  async push(bytes: Buffer, f: AudioFormat): Promise<Int16Array | null> {
    const mono = toMonoInt16(bytes, f);
    const planned = Math.ceil((mono.length * 16000) / f.rate);
    if (this.planned + planned > this.maxSamples) return null;
    this.planned += planned;
    let tail: Int16Array | null = null;
    if (this.resampler?.rate !== f.rate) {
      // A rate change mid-stream: finish the old rate's tail, start a new resampler.
      if (this.resampler) tail = await this.resampler.thread.flush();
      this.resampler = f.rate === 16000 ? null : { rate: f.rate, thread: new ThreadResampler(f.rate, 16000) };
    }
    const out = this.resampler ? await this.resampler.thread.push(mono) : mono;
    if (!tail?.length) return out;
    const joined = new Int16Array(tail.length + out.length);
    joined.set(tail);
    joined.set(out, tail.length);
    return joined;
  }

  /** The resampler's last samples (empty at 16 kHz); the resampler is given back. */
  async finish(): Promise<Int16Array> {
    const r = this.resampler;
    this.resampler = null;
    return r ? r.thread.flush() : new Int16Array(0);
  }

  /** Gives the resampler back when the utterance is dropped unfinished. */
  dispose(): void {
    this.resampler?.thread.close();
    this.resampler = null;
  }
}
