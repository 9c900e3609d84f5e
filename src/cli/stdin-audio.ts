// What `parla listen -` reads on stdin: raw 16-bit PCM (at --sample-rate, as before), or a whole
// audio file piped in (`cat talk.wav | parla listen -`, `ffmpeg ... -f ogg - | parla listen -`).
// The first bytes tell them apart: a container's signature (RIFF/WAVE, Ogg, WebM/EBML, fLaC, ID3
// or two MPEG audio frames in a row, MP4's ftyp) means a file, which is read whole and decoded to
// 16 kHz mono by the server's own decoder (src/audio/decode.ts); anything else is raw PCM.

import { decodeToMono16k } from '../audio/decode.js';
import { UsageError } from './args.js';

/** Bytes looked at to tell a container from raw PCM. */
const HEAD_BYTES = 4096;
/** A piped file is held in memory to be decoded: at most this much. */
const MAX_FILE_BYTES = 512 * 1024 * 1024;

const MPEG_KBPS: Record<string, number[]> = {
  v1l3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l3: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** Length of the MPEG layer III frame whose header starts at `i`, or 0 when none does. */
function mpegFrameLength(b: Uint8Array, i: number): number {
  if (i + 4 > b.length || b[i] !== 0xff || (b[i + 1]! & 0xe0) !== 0xe0) return 0;
  const version = (b[i + 1]! >> 3) & 3;
  const layer = (b[i + 1]! >> 1) & 3;
  if (version === 1 || layer !== 1) return 0;
  const kbps = (version === 3 ? MPEG_KBPS.v1l3! : MPEG_KBPS.v2l3!)[b[i + 2]! >> 4];
  const rate = MPEG_RATES[version]?.[(b[i + 2]! >> 2) & 3];
  if (!kbps || !rate) return 0;
  const samples = version === 3 ? 1152 : 576;
  return Math.floor(((samples / 8) * kbps * 1000) / rate) + ((b[i + 2]! >> 1) & 1);
}

/** The container the first bytes announce, or null for raw PCM. */
export function containerOf(head: Uint8Array): string | null {
  const ascii = (from: number, to: number) => Buffer.from(head.subarray(from, to)).toString('latin1');
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav';
  if (ascii(0, 4) === 'OggS') return 'ogg';
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  if (ascii(0, 4) === 'fLaC') return 'flac';
  if (ascii(0, 3) === 'ID3') return 'mp3';
  if (ascii(4, 8) === 'ftyp') return 'mp4';
  // A sync word alone is a plausible pair of PCM samples: an MPEG stream is two frames in a row.
  const first = mpegFrameLength(head, 0);
  if (first > 0 && mpegFrameLength(head, first) > 0) return 'mp3';
  return null;
}

export type StdinAudio = { kind: 'file'; container: string; pcm: Buffer } | { kind: 'raw'; chunks: AsyncIterable<Buffer> };

/** Reads stdin's first bytes and answers a decoded file or the raw stream (first bytes included). */
export async function readStdinAudio(input: AsyncIterable<Buffer | string>): Promise<StdinAudio> {
  const it = input[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < HEAD_BYTES) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    head.push(chunk);
    size += chunk.length;
  }
  const first = Buffer.concat(head);
  const container = containerOf(first);
  if (!container) {
    async function* raw(): AsyncGenerator<Buffer> {
      if (first.length) yield first;
      if (ended) return;
      for (let n = await it.next(); !n.done; n = await it.next()) yield Buffer.isBuffer(n.value) ? n.value : Buffer.from(n.value);
    }
    return { kind: 'raw', chunks: raw() };
  }
  const parts: Buffer[] = [first];
  let total = first.length;
  if (!ended) {
    for (let n = await it.next(); !n.done; n = await it.next()) {
      const chunk = Buffer.isBuffer(n.value) ? n.value : Buffer.from(n.value);
      total += chunk.length;
      if (total > MAX_FILE_BYTES)
        throw new UsageError(
          `the ${container} file on stdin is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB: give its path instead, or pipe raw PCM`,
        );
      parts.push(chunk);
    }
  }
  let samples: Int16Array;
  try {
    samples = await decodeToMono16k(Buffer.concat(parts));
  } catch (err) {
    throw new UsageError(`the ${container} audio on stdin could not be decoded: ${(err as Error).message}`);
  }
  return { kind: 'file', container, pcm: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength) };
}
