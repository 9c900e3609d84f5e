// Decoding uploads to 16 kHz mono PCM for recognition: WAV (our own reader: every PCM width and
// float), MP3, FLAC, Ogg Vorbis/Opus, WebM/Opus and M4A/AAC through audio-decode (WASM), with
// Debian's ffmpeg as a fallback when it is installed. Runs in a worker thread.

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import decodeAudio from 'audio-decode';
import { ffmpegAvailable } from './ffmpeg.js';
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

interface Decoded {
  sampleRate: number;
  channels: Float32Array[];
}

const isWebm = (b: Uint8Array) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3;

async function decodeWebmChunked(bytes: Uint8Array): Promise<Decoded> {
  // Whole-file WebM decoding in audio-decode is quadratic in the file length; its chunked decoder is linear.
  const dec = await decodeAudio.webm();
  const parts: Array<{ channelData: Float32Array[]; sampleRate: number }> = [];
  for (let i = 0; i < bytes.length; i += 1 << 16) parts.push(await dec(bytes.subarray(i, i + (1 << 16))));
  parts.push(await dec());
  const ok = parts.filter((p) => p.channelData?.[0]?.length);
  if (ok.length === 0) throw new AudioDecodeError('no audio in the WebM file');
  const channels = ok[0]!.channelData.map((_, c) => concatFloat32(ok.map((p) => p.channelData[c] ?? new Float32Array(0))));
  return { sampleRate: ok[0]!.sampleRate, channels };
}

async function decodeWithLibrary(bytes: Uint8Array): Promise<Decoded> {
  if (isWav(bytes)) return decodeWav(bytes);
  if (isWebm(bytes)) return decodeWebmChunked(bytes);
  const res = await decodeAudio(bytes);
  return { sampleRate: res.sampleRate, channels: res.channelData };
}

/** ffmpeg fallback: a temp file, not a pipe (MP4 with its index at the end cannot be read from a pipe). */
async function decodeWithFfmpeg(bytes: Uint8Array): Promise<Float32Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'parla-dec-'));
  const file = path.join(dir, 'input');
  try {
    await writeFile(file, bytes);
    return await new Promise<Float32Array>((resolve, reject) => {
      const p = spawn('ffmpeg', ['-nostdin', '-v', 'error', '-i', file, '-ac', '1', '-ar', String(RECOGNITION_RATE), '-f', 'f32le', '-'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let err = '';
      const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
      p.stdout.on('data', (d: Buffer) => out.push(d));
      p.stderr.on('data', (d: Buffer) => (err += d.toString()));
      p.on('error', reject);
      p.on('close', (code) => {
        clearTimeout(timer);
        if (code !== 0) return reject(new AudioDecodeError(`ffmpeg could not decode the file: ${err.trim().split('\n').pop() ?? code}`));
        const buf = Buffer.concat(out);
        resolve(new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength - (buf.byteLength % 4))));
      });
    });
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
 */
export async function decodeToMono16k(bytes: Uint8Array, opts: { allowFfmpeg?: boolean } = {}): Promise<Int16Array> {
  if (bytes.length < 16) throw new AudioDecodeError('the file is too short to be audio');
  let mono: Float32Array;
  try {
    const d = await decodeWithLibrary(bytes);
    if (!d.channels.length || !d.channels[0]?.length || !(d.sampleRate > 0)) throw new AudioDecodeError('no audio samples in the file');
    mono = resampleFloat32(toMono(d), d.sampleRate, RECOGNITION_RATE);
  } catch (err) {
    if ((opts.allowFfmpeg ?? true) && (await ffmpegAvailable())) {
      try {
        mono = await decodeWithFfmpeg(bytes);
      } catch (ffErr) {
        throw new AudioDecodeError((err as Error).message, { cause: ffErr });
      }
    } else {
      throw err instanceof AudioDecodeError ? err : new AudioDecodeError((err as Error).message, { cause: err });
    }
  }
  if (mono.length === 0) throw new AudioDecodeError('the file contains no audio');
  return float32ToInt16(mono);
}
