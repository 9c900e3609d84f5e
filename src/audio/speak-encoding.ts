// The encodings of Deepgram's speak API that Parla makes with a real encoder (docs/compatibility.md,
// "Speak"): linear16 and the G.711 laws (mulaw, alaw), raw or in a WAV container, MP3 (LAME at the
// requested bit rate) and FLAC (libFLAC). Whole clips, encoded in a worker (src/tts/encode-task.ts).

import { createMp3Encoder } from 'wasm-media-encoders';
import { encodeAll } from './encoders.js';
import { compand } from './g711.js';
import { int16ToFloat32 } from './pcm.js';
import { wavHeader } from './wav.js';

export type SpeakEncoding = 'linear16' | 'mulaw' | 'alaw' | 'mp3' | 'flac';

export interface SpeakEncodeSpec {
  encoding: SpeakEncoding;
  /** wav: a RIFF/WAVE file; none: the raw samples (linear16, mulaw, alaw only). */
  container: 'wav' | 'none';
  sampleRate: number;
  /** MP3 only, bits per second. */
  bitRate?: number;
}

/**
 * A WAV header for G.711 samples: format tag 7 (mu-law) or 6 (A-law), 8 bits a sample, the
 * 18-byte fmt chunk and the fact chunk (sample count) that non-PCM WAV files carry.
 */
export function g711WavHeader(law: 'mulaw' | 'alaw', sampleRate: number, samples: number): Buffer {
  const h = Buffer.alloc(58);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(50 + samples, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(18, 16);
  h.writeUInt16LE(law === 'mulaw' ? 7 : 6, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate, 28);
  h.writeUInt16LE(1, 32);
  h.writeUInt16LE(8, 34);
  h.writeUInt16LE(0, 36);
  h.write('fact', 38, 'ascii');
  h.writeUInt32LE(4, 42);
  h.writeUInt32LE(samples, 46);
  h.write('data', 50, 'ascii');
  h.writeUInt32LE(samples, 54);
  return h;
}

/** A whole clip (mono s16 at spec.sampleRate) in the requested encoding and container. */
export async function encodeSpeak(samples: Int16Array, spec: SpeakEncodeSpec): Promise<Buffer> {
  const rate = spec.sampleRate;
  switch (spec.encoding) {
    case 'linear16': {
      const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
      return spec.container === 'wav' ? Buffer.concat([wavHeader(rate, data.length), data]) : Buffer.from(data);
    }
    case 'mulaw':
    case 'alaw': {
      const data = compand(samples, spec.encoding);
      return spec.container === 'wav' ? Buffer.concat([g711WavHeader(spec.encoding, rate, data.length), data]) : data;
    }
    case 'mp3': {
      const enc = await createMp3Encoder();
      enc.configure({ sampleRate: rate, channels: 1, bitrate: Math.round((spec.bitRate ?? 48000) / 1000) as 48 });
      const parts: Buffer[] = [];
      // One second at a time keeps the WASM buffers small; the encoder reuses its output buffer.
      for (let i = 0; i < samples.length; i += rate) parts.push(Buffer.from(enc.encode([int16ToFloat32(samples.subarray(i, i + rate))])));
      parts.push(Buffer.from(enc.finalize()));
      return Buffer.concat(parts);
    }
    case 'flac':
      return encodeAll('flac', samples, rate);
    default:
      throw new RangeError(`unknown encoding ${String(spec.encoding)}`);
  }
}
