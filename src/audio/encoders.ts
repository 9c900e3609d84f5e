// Audio encoders, all incremental (push PCM, get bytes; end() flushes): WAV (PCM16), MP3 (LAME,
// wasm-media-encoders), Ogg Vorbis (libvorbis, wasm-media-encoders), FLAC (libFLAC, libflacjs).
// These run inside worker threads (see src/tasks/table.ts).

import { createRequire } from 'node:module';
import { createMp3Encoder, createOggEncoder } from 'wasm-media-encoders';
import { int16ToFloat32 } from './pcm.js';
import { wavHeader } from './wav.js';

export const AUDIO_FORMATS = ['wav', 'mp3', 'ogg', 'flac'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

export const CONTENT_TYPES: Record<AudioFormat, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg', flac: 'audio/flac' };

/** Rates LAME writes natively; anything else is resampled by the caller first. */
export const MP3_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const;

export interface Encoder {
  push(samples: Int16Array): Buffer;
  end(): Buffer;
}

const require = createRequire(import.meta.url);

interface LibFlac {
  isReady(): boolean;
  on(ev: 'ready', fn: () => void): void;
  create_libflac_encoder(
    rate: number,
    channels: number,
    bps: number,
    compression: number,
    totalSamples: number,
    verify: boolean,
    blockSize: number,
  ): number;
  init_encoder_stream(enc: number, write: (data: Uint8Array) => void): number;
  FLAC__stream_encoder_process_interleaved(enc: number, data: Int32Array, samples: number): boolean;
  FLAC__stream_encoder_finish(enc: number): boolean;
  FLAC__stream_encoder_delete(enc: number): void;
}

let flacLib: Promise<LibFlac> | null = null;

function loadFlac(): Promise<LibFlac> {
  flacLib ??= (async () => {
    // libflacjs' WASM loader calls fetch() when it exists (as on Node 18+) and then fails to load
    // from a file path; hiding fetch while it loads makes it read the file instead.
    const saved = globalThis.fetch;
    (globalThis as { fetch?: unknown }).fetch = undefined;
    try {
      const Flac = (require('libflacjs') as (variant: string) => LibFlac)('release.wasm');
      if (!Flac.isReady()) await new Promise<void>((resolve) => Flac.on('ready', () => resolve()));
      return Flac;
    } finally {
      globalThis.fetch = saved;
    }
  })();
  return flacLib;
}

function wavEncoder(sampleRate: number, totalSamples: number | null): Encoder {
  let headerSent = false;
  return {
    push(samples) {
      const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
      if (headerSent) return Buffer.from(data);
      headerSent = true;
      // Unknown total length (streaming): the maximum size, as streaming WAV writers do.
      return Buffer.concat([wavHeader(sampleRate, totalSamples === null ? 0xffffffff - 36 : totalSamples * 2), data]);
    },
    end() {
      return headerSent ? Buffer.alloc(0) : wavHeader(sampleRate, 0);
    },
  };
}

export async function createEncoder(format: AudioFormat, sampleRate: number, opts: { totalSamples?: number } = {}): Promise<Encoder> {
  switch (format) {
    case 'wav':
      return wavEncoder(sampleRate, opts.totalSamples ?? null);
    case 'mp3':
    case 'ogg': {
      if (format === 'mp3' && !(MP3_RATES as readonly number[]).includes(sampleRate))
        throw new RangeError(`MP3 cannot be written at ${sampleRate} Hz`);
      const enc = format === 'mp3' ? await createMp3Encoder() : await createOggEncoder();
      if (format === 'mp3') (enc as Awaited<ReturnType<typeof createMp3Encoder>>).configure({ sampleRate, channels: 1, bitrate: 64 });
      // Quality 5, not 3: at 3, Vorbis put peaks of limited speech 1.3 dB over the input's true
      // peak, past the -1 dBTP ceiling (src/audio/dsp/level.ts); at 5, 0.4-0.5 dB.
      else (enc as Awaited<ReturnType<typeof createOggEncoder>>).configure({ sampleRate, channels: 1, vbrQuality: 5 });
      return {
        // The encoder reuses its output buffer: copy before the next call.
        push: (samples) => Buffer.from(enc.encode([int16ToFloat32(samples)])),
        end: () => Buffer.from(enc.finalize()),
      };
    }
    case 'flac': {
      const Flac = await loadFlac();
      const enc = Flac.create_libflac_encoder(sampleRate, 1, 16, 5, opts.totalSamples ?? 0, false, 0);
      if (!enc) throw new Error('libFLAC could not create an encoder');
      let out: Buffer[] = [];
      const status = Flac.init_encoder_stream(enc, (bytes) => out.push(Buffer.from(bytes)));
      if (status !== 0) throw new Error(`libFLAC encoder init failed (${status})`);
      const take = () => {
        const b = Buffer.concat(out);
        out = [];
        return b;
      };
      return {
        push(samples) {
          if (samples.length > 0) Flac.FLAC__stream_encoder_process_interleaved(enc, Int32Array.from(samples), samples.length);
          return take();
        },
        end() {
          Flac.FLAC__stream_encoder_finish(enc);
          Flac.FLAC__stream_encoder_delete(enc);
          return take();
        },
      };
    }
    default:
      throw new RangeError(`unknown format ${String(format)}`);
  }
}

/** Encodes a whole clip. */
export async function encodeAll(format: AudioFormat, samples: Int16Array, sampleRate: number): Promise<Buffer> {
  // A whole WAV is its header and the samples: one copy instead of one per second plus a join.
  if (format === 'wav')
    return Buffer.concat([wavHeader(sampleRate, samples.byteLength), Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);
  const enc = await createEncoder(format, sampleRate, { totalSamples: samples.length });
  const parts: Buffer[] = [];
  const chunk = sampleRate; // one second at a time keeps the WASM buffers small
  for (let i = 0; i < samples.length; i += chunk) parts.push(enc.push(samples.subarray(i, i + chunk)));
  if (samples.length === 0) parts.push(enc.push(new Int16Array(0)));
  parts.push(enc.end());
  return Buffer.concat(parts);
}
