// WAV: writing PCM16 mono, and reading any PCM width (8/16/24/32-bit), float (32/64-bit),
// WAVE_FORMAT_EXTENSIBLE, any rate and channel count.

import { Readable } from 'node:stream';

export class WavFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WavFormatError';
  }
}

export function wavHeader(sampleRate: number, dataBytes: number, channels = 1): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(Math.min(0xffffffff, dataBytes), 40);
  return h;
}

export function encodeWav(samples: Int16Array, sampleRate: number): Buffer {
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  return Buffer.concat([wavHeader(sampleRate, data.length), data]);
}

/** Zeros for the silences of streamed WAVs: shared and never written to. */
const ZEROS = Buffer.alloc(64 * 1024);

/**
 * A WAV of consecutive pieces (PCM at sampleRate, or a number of samples of silence) as a stream
 * and its length: the header, then each piece as it is (views, no copy), silence from one shared
 * buffer of zeros. Nothing the size of the file is ever allocated, so a long answer holds only its
 * speech until it is written.
 */
export function wavStream(parts: Array<Int16Array | number>, sampleRate: number): { body: Readable; byteLength: number } {
  const dataBytes = parts.reduce<number>((n, p) => n + 2 * (typeof p === 'number' ? p : p.length), 0);
  function* chunks(): Generator<Buffer> {
    yield wavHeader(sampleRate, dataBytes);
    for (const p of parts) {
      if (typeof p !== 'number') {
        if (p.byteLength > 0) yield Buffer.from(p.buffer, p.byteOffset, p.byteLength);
        continue;
      }
      for (let left = p * 2; left > 0; left -= ZEROS.length) yield ZEROS.subarray(0, Math.min(left, ZEROS.length));
    }
  }
  return { body: Readable.from(chunks(), { objectMode: false, highWaterMark: ZEROS.length }), byteLength: 44 + dataBytes };
}

export function isWav(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 12 &&
    Buffer.from(bytes.subarray(0, 4)).toString('ascii') === 'RIFF' &&
    Buffer.from(bytes.subarray(8, 12)).toString('ascii') === 'WAVE'
  );
}

/**
 * A mono 16-bit PCM WAV (what engines such as Flite write) as its samples, with one copy and no
 * per-sample conversion; null for any other layout (use decodeWav).
 */
export function decodePcm16MonoWav(bytes: Uint8Array): { sampleRate: number; samples: Int16Array } | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isWav(b)) return null;
  let off = 12;
  let rate = 0;
  while (off + 8 <= b.length) {
    const id = b.toString('ascii', off, off + 4);
    const size = b.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) return null;
      if (b.readUInt16LE(body) !== 1 || b.readUInt16LE(body + 2) !== 1 || b.readUInt16LE(body + 14) !== 16) return null;
      rate = b.readUInt32LE(body + 4);
    } else if (id === 'data') {
      if (!rate) return null;
      const end = size === 0 || size === 0xffffffff || body + size > b.length ? b.length : body + size;
      const samples = new Int16Array(Math.floor((end - body) / 2));
      // Copy bytes into a fresh, aligned array; the file is little-endian like every supported host.
      new Uint8Array(samples.buffer).set(b.subarray(body, body + samples.length * 2));
      return { sampleRate: rate, samples };
    }
    off = body + size + (size % 2);
  }
  return null;
}

/** Decodes a WAV file to one Float32Array per channel. */
export function decodeWav(bytes: Uint8Array): { sampleRate: number; channels: Float32Array[] } {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isWav(b)) throw new WavFormatError('not a RIFF/WAVE file');
  let off = 12;
  let fmt: { format: number; channels: number; rate: number; bits: number; align: number } | null = null;
  while (off + 8 <= b.length) {
    const id = b.toString('ascii', off, off + 4);
    const size = b.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) throw new WavFormatError('truncated fmt chunk');
      let format = b.readUInt16LE(body);
      // WAVE_FORMAT_EXTENSIBLE keeps the real format in the sub-format GUID's first two bytes.
      if (format === 0xfffe && size >= 40) format = b.readUInt16LE(body + 24);
      fmt = {
        format,
        channels: b.readUInt16LE(body + 2),
        rate: b.readUInt32LE(body + 4),
        bits: b.readUInt16LE(body + 14),
        align: b.readUInt16LE(body + 12),
      };
    } else if (id === 'data') {
      if (!fmt) throw new WavFormatError('data chunk before fmt chunk');
      const { format, channels, rate, bits } = fmt;
      if (channels < 1 || channels > 32 || rate < 1000 || rate > 768000) throw new WavFormatError('implausible WAV format');
      const bytesPer = bits / 8;
      if (
        ![1, 3].includes(format) ||
        !Number.isInteger(bytesPer) ||
        (format === 1 && ![1, 2, 3, 4].includes(bytesPer)) ||
        (format === 3 && ![4, 8].includes(bytesPer))
      ) {
        throw new WavFormatError(`unsupported WAV encoding (format ${format}, ${bits} bits)`);
      }
      // A streamed WAV may declare 0 or 0xFFFFFFFF bytes: read to the end of the file.
      const end = size === 0 || size === 0xffffffff || body + size > b.length ? b.length : body + size;
      const frame = bytesPer * channels;
      const frames = Math.floor((end - body) / frame);
      const out = Array.from({ length: channels }, () => new Float32Array(frames));
      for (let i = 0; i < frames; i++) {
        for (let c = 0; c < channels; c++) {
          const p = body + i * frame + c * bytesPer;
          let v: number;
          if (format === 3) v = bytesPer === 4 ? b.readFloatLE(p) : b.readDoubleLE(p);
          else if (bytesPer === 1) v = (b[p]! - 128) / 128;
          else if (bytesPer === 2) v = b.readInt16LE(p) / 32768;
          else if (bytesPer === 3) v = b.readIntLE(p, 3) / 8388608;
          else v = b.readInt32LE(p) / 2147483648;
          out[c]![i] = v;
        }
      }
      return { sampleRate: rate, channels: out };
    }
    off = body + size + (size % 2);
  }
  throw new WavFormatError('no data chunk');
}
