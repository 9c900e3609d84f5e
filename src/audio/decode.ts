// Decoding uploads to 16 kHz mono PCM for recognition: WAV (our own reader: every PCM width and
// float), MP3, FLAC, Ogg Vorbis/Opus, WebM/Opus and M4A/AAC through audio-decode (WASM), with
// Debian's ffmpeg as a fallback when it is installed. Runs in the decoder process
// (src/audio/decoder/child.ts), never in the service: a hostile file can exhaust a decoder's memory
// (issue 30), and only a process of its own can die of it alone. `maxSeconds` caps the audio one
// decode may produce (decision #42): past it, AudioTooLongError, and the decoding stops.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import decodeAudio from 'audio-decode';
import { ffmpegAvailable } from './ffmpeg.js';
import { sharedSpawner } from '../process/spawner.js';
import { concatFloat32, float32ToInt16 } from './pcm.js';
import { resampleFloat32 } from './resample.js';
import { decodeWav, isWav } from './wav.js';

export const RECOGNITION_RATE = 16000;

export class AudioDecodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AudioDecodeError';
  }
}

/** The audio is longer than the decode was allowed to produce (`seconds`: how long it was found to be, at least). */
export class AudioTooLongError extends Error {
  constructor(readonly seconds: number) {
    super(`the audio is longer than ${seconds.toFixed(1)} s`);
    this.name = 'AudioTooLongError';
  }
}

interface Decoded {
  sampleRate: number;
  channels: Float32Array[];
}

const isWebm = (b: Uint8Array) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3;
const ascii = (b: Uint8Array, at: number, s: string) => s.split('').every((c, i) => b[at + i] === c.charCodeAt(0));

/**
 * The formats decoded piece by piece (audio-decode's streaming decoders), so that the decode stops
 * the moment the cap is passed instead of after the whole file (issue 30: an hour of FLAC silence in
 * 14 KB). Others (M4A, whose index may sit at the end) are decoded whole, then checked.
 */
function streamedFormat(b: Uint8Array): 'webm' | 'flac' | 'mp3' | 'oga' | 'opus' | null {
  if (isWebm(b)) return 'webm';
  if (ascii(b, 0, 'fLaC')) return 'flac';
  if (ascii(b, 0, 'OggS')) {
    // The first page holds the codec's header: Opus or (by default) Vorbis.
    const head = Buffer.from(b.subarray(0, Math.min(b.length, 200))).toString('latin1');
    return head.includes('OpusHead') ? 'opus' : head.includes('\x01vorbis') ? 'oga' : null;
  }
  if (ascii(b, 0, 'ID3') || (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0)) return 'mp3';
  return null;
}

async function decodeChunked(
  bytes: Uint8Array,
  format: NonNullable<ReturnType<typeof streamedFormat>>,
  maxSeconds: number,
): Promise<Decoded> {
  // Whole-file WebM decoding in audio-decode is quadratic in the file length; its chunked decoder is linear.
  const dec = await decodeAudio[format]();
  const parts: Array<{ channelData: Float32Array[]; sampleRate: number }> = [];
  let seconds = 0;
  try {
    for (let i = 0; i < bytes.length; i += 1 << 16) {
      const part = await dec(bytes.subarray(i, i + (1 << 16)));
      parts.push(part);
      if (part.sampleRate > 0) seconds += (part.channelData[0]?.length ?? 0) / part.sampleRate;
      // Stop the moment the cap is passed, not after decoding the rest.
      if (seconds > maxSeconds) throw new AudioTooLongError(seconds);
    }
    parts.push(await dec());
  } catch (err) {
    dec.free?.();
    throw err;
  }
  const ok = parts.filter((p) => p.channelData?.[0]?.length);
  if (ok.length === 0)
    throw new AudioDecodeError(
      `no audio in the ${format === 'oga' ? 'Ogg Vorbis' : format === 'opus' ? 'Ogg Opus' : format.toUpperCase()} file`,
    );
  // Each piece mixed to mono on its own: MP3's decoder may turn dual mono into one channel in one
  // piece and keep two in the next.
  return {
    sampleRate: ok[0]!.sampleRate,
    channels: [concatFloat32(ok.map((p) => toMono({ sampleRate: p.sampleRate, channels: p.channelData })))],
  };
}

async function decodeWithLibrary(bytes: Uint8Array, maxSeconds: number): Promise<Decoded> {
  if (isWav(bytes)) return decodeWav(bytes);
  const format = streamedFormat(bytes);
  if (format) return decodeChunked(bytes, format, maxSeconds);
  const res = await decodeAudio(bytes);
  return { sampleRate: res.sampleRate, channels: res.channelData };
}

/** ffmpeg fallback: a temp file, not a pipe (MP4 with its index at the end cannot be read from a pipe). */
async function decodeWithFfmpeg(bytes: Uint8Array, maxSeconds: number): Promise<Float32Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'parla-dec-'));
  const file = path.join(dir, 'input');
  try {
    await writeFile(file, bytes);
    // Started through this thread's spawner (src/process/spawner.ts), not forked from the worker.
    // -t: ffmpeg stops a little past the cap, so the output is bounded whatever the file says.
    const limit = Number.isFinite(maxSeconds) ? ['-t', String(Math.ceil(maxSeconds) + 1)] : [];
    const run = await sharedSpawner().collect(
      'ffmpeg',
      ['-nostdin', '-v', 'error', '-i', file, ...limit, '-ac', '1', '-ar', String(RECOGNITION_RATE), '-f', 'f32le', '-'],
      { signal: AbortSignal.timeout(120_000) },
    );
    if (run.code !== 0)
      throw new AudioDecodeError(`ffmpeg could not decode the file: ${run.stderr.trim().split('\n').pop() || (run.code ?? run.signal)}`);
    const buf = run.stdout;
    return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength - (buf.byteLength % 4)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function toMono(d: Decoded): Float32Array {
  const n = d.channels[0]?.length ?? 0;
  if (d.channels.length === 1) return d.channels[0]!;
  const mono = new Float32Array(n);
  for (const ch of d.channels) for (let i = 0; i < n; i++) mono[i]! += ch[i]! / d.channels.length;
  return mono;
}

/**
 * Any supported upload -> 16 kHz mono Int16 PCM. Throws AudioDecodeError for anything else; its
 * message is the reason alone (the API's INVALID_AUDIO message says "could not be decoded").
 * Throws AudioTooLongError when the audio is longer than `maxSeconds`.
 */
export async function decodeToMono16k(bytes: Uint8Array, opts: { allowFfmpeg?: boolean; maxSeconds?: number } = {}): Promise<Int16Array> {
  if (bytes.length < 16) throw new AudioDecodeError('the file is too short to be audio');
  const maxSeconds = opts.maxSeconds ?? Infinity;
  let mono: Float32Array;
  try {
    const d = await decodeWithLibrary(bytes, maxSeconds);
    if (!d.channels.length || !d.channels[0]?.length || !(d.sampleRate > 0)) throw new AudioDecodeError('no audio samples in the file');
    // Checked before resampling: an over-long file costs no more work.
    const seconds = d.channels[0].length / d.sampleRate;
    if (seconds > maxSeconds) throw new AudioTooLongError(seconds);
    mono = resampleFloat32(toMono(d), d.sampleRate, RECOGNITION_RATE);
  } catch (err) {
    if (err instanceof AudioTooLongError) throw err;
    if ((opts.allowFfmpeg ?? true) && (await ffmpegAvailable())) {
      try {
        mono = await decodeWithFfmpeg(bytes, maxSeconds);
      } catch (ffErr) {
        throw new AudioDecodeError((err as Error).message, { cause: ffErr });
      }
    } else {
      throw err instanceof AudioDecodeError ? err : new AudioDecodeError((err as Error).message, { cause: err });
    }
  }
  if (mono.length === 0) throw new AudioDecodeError('the file contains no audio');
  if (mono.length / RECOGNITION_RATE > maxSeconds) throw new AudioTooLongError(mono.length / RECOGNITION_RATE);
  return float32ToInt16(mono);
}
