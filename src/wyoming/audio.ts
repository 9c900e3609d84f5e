// Wyoming audio is raw little-endian PCM described by rate, width (bytes per sample) and channels
// on each audio event. The recognizers take 16 kHz mono 16-bit, so what arrives is checked here,
// mixed down to mono and resampled (Parla's resampler, on its thread), chunk by chunk, keeping
// the resampler's state across chunks so there are no seams.

import { ThreadResampler } from '../realtime/thread-resampler.js';

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
  if (bytes.length % frame !== 0) throw new AudioFormatError(`an audio chunk of ${bytes.length} bytes is not whole frames of ${f.channels} channel(s) x ${f.width} byte(s).`);
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
 * Collects one utterance as 16 kHz mono 16-bit, whatever formats its chunks come in. The mix-down
 * is a cheap pass here; resampling runs on the shared resampling thread (as for the real-time
 * socket), so a large chunk does not hold the event loop. One growing buffer (doubled when full),
 * so a flood of tiny chunks costs no more memory than their samples. Call add() one at a time.
 */
export class Utterance16k {
  private buf = new Int16Array(16000);
  private samples = 0;
  /** Input samples taken (at 16 kHz), for the length check before the resampled audio is back. */
  private planned = 0;
  private resampler: { rate: number; thread: ThreadResampler } | null = null;

  constructor(private readonly maxSamples: number) {}

  /** Adds a chunk; false when the utterance would be longer than allowed (nothing is added). */
  async add(bytes: Buffer, f: AudioFormat): Promise<boolean> {
    const mono = toMonoInt16(bytes, f);
    const planned = Math.ceil((mono.length * 16000) / f.rate);
    if (this.planned + planned > this.maxSamples) return false;
    this.planned += planned;
    if (this.resampler?.rate !== f.rate) {
      // A rate change mid-stream: finish the old rate's tail, start a new resampler.
      if (this.resampler) this.keep(await this.resampler.thread.flush());
      this.resampler = f.rate === 16000 ? null : { rate: f.rate, thread: new ThreadResampler(f.rate, 16000) };
    }
    this.keep(this.resampler ? await this.resampler.thread.push(mono) : mono);
    return true;
  }

  /** All of it, the resampler's tail included. */
  async finish(): Promise<Int16Array> {
    if (this.resampler) {
      const r = this.resampler;
      this.resampler = null;
      this.keep(await r.thread.flush());
    }
    return this.buf.subarray(0, this.samples);
  }

  /** Gives the resampler back when the utterance is dropped unfinished. */
  dispose(): void {
    this.resampler?.thread.close();
    this.resampler = null;
  }

  private keep(pcm: Int16Array): void {
    if (pcm.length === 0) return;
    if (this.samples + pcm.length > this.buf.length) {
      const grown = new Int16Array(Math.max(this.samples + pcm.length, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.samples));
      this.buf = grown;
    }
    this.buf.set(pcm, this.samples);
    this.samples += pcm.length;
  }
}
