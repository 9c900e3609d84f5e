// Wyoming audio is raw little-endian PCM described by rate, width (bytes per sample) and channels
// on each audio event. The recognizers take 16 kHz mono 16-bit, so what arrives is checked here,
// mixed down to mono and resampled (Parla's resampler), chunk by chunk, keeping the resampler's
// state across chunks so there are no seams.

import { StreamResampler } from '../audio/resample.js';
import { float32ToInt16 } from '../audio/pcm.js';

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

/** Interleaved PCM of `f` to mono float samples in [-1, 1]. Samples are signed (audioop's convention, also for width 1). */
export function toMonoFloat(bytes: Buffer, f: AudioFormat): Float32Array {
  const frame = f.width * f.channels;
  if (bytes.length % frame !== 0) throw new AudioFormatError(`an audio chunk of ${bytes.length} bytes is not whole frames of ${f.channels} channel(s) x ${f.width} byte(s).`);
  const frames = bytes.length / frame;
  const out = new Float32Array(frames);
  const scale = 1 / (2 ** (8 * f.width - 1) * f.channels);
  for (let i = 0, o = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < f.channels; c++, o += f.width) {
      switch (f.width) {
        case 1:
          sum += bytes.readInt8(o);
          break;
        case 2:
          sum += bytes.readInt16LE(o);
          break;
        case 3:
          sum += bytes.readIntLE(o, 3);
          break;
        default:
          sum += bytes.readInt32LE(o);
      }
    }
    out[i] = sum * scale;
  }
  return out;
}

/**
 * Collects one utterance as 16 kHz mono 16-bit, whatever formats its chunks come in. One growing
 * buffer (doubled when full), so a flood of tiny chunks costs no more memory than their samples.
 */
export class Utterance16k {
  private buf = new Int16Array(16000);
  private samples = 0;
  private resampler: StreamResampler | null = null;

  constructor(private readonly maxSamples: number) {}

  get seconds(): number {
    return this.samples / 16000;
  }

  /** Adds a chunk; false when the utterance would be longer than allowed (nothing is added). */
  add(bytes: Buffer, f: AudioFormat): boolean {
    const mono = toMonoFloat(bytes, f);
    if (this.samples + Math.ceil((mono.length * 16000) / f.rate) > this.maxSamples) return false;
    if (!this.resampler || this.resampler.inRate !== f.rate) {
      // A rate change mid-stream: finish the old rate's tail, start a new resampler.
      if (this.resampler) this.keep(this.resampler.flush());
      this.resampler = f.rate === 16000 ? null : new StreamResampler(f.rate, 16000);
    }
    this.keep(this.resampler ? this.resampler.push(mono) : mono);
    return true;
  }

  /** All of it, the resampler's tail included. */
  finish(): Int16Array {
    if (this.resampler) this.keep(this.resampler.flush());
    this.resampler = null;
    return this.buf.subarray(0, this.samples);
  }

  private keep(x: Float32Array): void {
    if (x.length === 0) return;
    const pcm = float32ToInt16(x);
    if (this.samples + pcm.length > this.buf.length) {
      const grown = new Int16Array(Math.max(this.samples + pcm.length, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.samples));
      this.buf = grown;
    }
    this.buf.set(pcm, this.samples);
    this.samples += pcm.length;
  }
}
