// How long an upload says it is, read from its header before anything is decoded (issue 30,
// decision #42): a 14 KB FLAC can declare an hour of silence and a 24 MB WAV at 1 kHz 8-bit six
// hours, and decoding them first took seconds of CPU and gigabytes before the request was refused.
// WAV (data chunk / byte rate) and FLAC (STREAMINFO's total samples) are read here in a few
// bounded steps; every other container (MP3 with its Xing/VBRI count or a bit-rate estimate, Ogg's
// last granule position, M4A's mvhd, WebM's Duration) is asked of ffprobe when it is installed.
// A header can lie either way: this is a first refusal, not the bound (the decoder also stops at
// the cap, src/audio/decode.ts). Runs in the decoder process (src/audio/decoder/child.ts), never in
// the service: ffprobe is spawned from there.

import { spawn } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isWav } from './wav.js';

/** Seconds the WAV header promises (bounded by the bytes really there), or null when unreadable. */
export function wavDeclaredSeconds(bytes: Uint8Array, fileBytes = bytes.byteLength): number | null {
  const d = wavData(bytes);
  if (!d) return null;
  // A streamed WAV says 0 or 0xFFFFFFFF: the data runs to the end of the file.
  const declared = d.size === 0 || d.size === 0xffffffff ? fileBytes - d.offset : d.size;
  return Math.min(declared, fileBytes - d.offset) / d.byteRate;
}

function wavData(bytes: Uint8Array): { offset: number; size: number; byteRate: number } | null {
  if (!isWav(bytes)) return null;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let off = 12;
  let byteRate = 0;
  // At most 64 chunks are looked at: a file of a million empty chunks is not walked to the end.
  for (let chunks = 0; chunks < 64 && off + 8 <= b.length; chunks++) {
    const id = b.toString('latin1', off, off + 4);
    const size = b.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ' && body + 16 <= b.length) {
      const channels = b.readUInt16LE(body + 2);
      const rate = b.readUInt32LE(body + 4);
      const bits = b.readUInt16LE(body + 14);
      // The byte rate field itself is not trusted: it is recomputed from what the reader uses.
      byteRate = rate * channels * Math.max(1, Math.ceil(bits / 8));
    } else if (id === 'data') {
      return byteRate > 0 ? { offset: body, size, byteRate } : null;
    }
    off = body + size + (size & 1);
  }
  return null;
}

/** Seconds FLAC's STREAMINFO declares (total samples / rate), or null when absent or 0 (unknown). */
export function flacDeclaredSeconds(bytes: Uint8Array): number | null {
  let off = 0;
  // An ID3v2 tag may come first: its size is four 7-bit bytes.
  if (bytes.length >= 10 && bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) {
    off = 10 + (((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f));
  }
  if (off + 4 + 4 + 18 > bytes.length) return null;
  if (bytes[off] !== 0x66 || bytes[off + 1] !== 0x4c || bytes[off + 2] !== 0x61 || bytes[off + 3] !== 0x43) return null;
  const block = off + 4;
  if ((bytes[block]! & 0x7f) !== 0) return null;
  const s = block + 4;
  const rate = (bytes[s + 10]! << 12) | (bytes[s + 11]! << 4) | (bytes[s + 12]! >> 4);
  const total =
    (bytes[s + 13]! & 0x0f) * 2 ** 32 + ((bytes[s + 14]! << 24) >>> 0) + (bytes[s + 15]! << 16) + (bytes[s + 16]! << 8) + bytes[s + 17]!;
  if (rate === 0 || total === 0) return null;
  return total / rate;
}

/** ffprobe's reading of the container's duration (seconds), or null (no ffprobe, no answer, N/A). */
export async function ffprobeSeconds(bytes: Uint8Array, timeoutMs = 10_000): Promise<number | null> {
  const dir = await mkdtemp(path.join(tmpdir(), 'parla-probe-'));
  const file = path.join(dir, 'input');
  try {
    await writeFile(file, bytes);
    return await ffprobeFile(file, timeoutMs);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function ffprobeFile(file: string, timeoutMs = 10_000): Promise<number | null> {
  return new Promise<number | null>((resolve) => {
    const p = spawn('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=noprint_wrappers=1:nokey=1', file], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.stdout.on('data', (d: Buffer) => {
      if (out.length < 200) out += d.toString();
    });
    p.on('error', () => resolve(null));
    p.on('close', () => {
      clearTimeout(timer);
      const n = Number.parseFloat(out.trim().split('\n')[0] ?? '');
      resolve(Number.isFinite(n) && n >= 0 ? n : null);
    });
  });
}

/** The upload's declared length in seconds, or null when its container does not say (or cannot be read). */
export async function declaredSeconds(bytes: Uint8Array): Promise<number | null> {
  if (isWav(bytes)) return wavDeclaredSeconds(bytes);
  const flac = flacDeclaredSeconds(bytes);
  if (flac !== null) return flac;
  return ffprobeSeconds(bytes);
}

/** declaredSeconds of a stored file (a job's upload) without reading all of it: WAV and FLAC from its head, others by ffprobe on the path. */
export async function declaredSecondsOfFile(file: string): Promise<number | null> {
  const fh = await open(file, 'r');
  let head: Buffer;
  let size: number;
  try {
    size = (await fh.stat()).size;
    head = Buffer.alloc(Math.min(size, 1 << 20));
    await fh.read(head, 0, head.length, 0);
  } finally {
    await fh.close();
  }
  if (isWav(head)) return wavDeclaredSeconds(head, size);
  return flacDeclaredSeconds(head) ?? ffprobeFile(file);
}
