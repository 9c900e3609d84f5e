// Mutated audio of every container the batch edges take (issue 30): test speech encoded by ffmpeg
// as WAV, MP3, FLAC, Ogg Vorbis, Ogg Opus, WebM/Opus and M4A/AAC, then copies with about 1% of
// their bytes flipped by a seeded generator, so the corpus is the same on every run and nothing
// large is kept in the repository. About 2% of such M4A copies once took the whole process down
// (the kept reproducer: test/fixtures/hostile/m4a-heap-crash.m4a).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { flite } from '../helpers/speech.js';
import { repoPath } from '../helpers/root.js';

export const CONTAINERS: Record<string, string[]> = {
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '32k', '-f', 'mp3'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
  ogg: ['-c:a', 'libvorbis', '-q:a', '2', '-f', 'ogg'],
  opus: ['-c:a', 'libopus', '-b:a', '24k', '-f', 'ogg'],
  webm: ['-c:a', 'libopus', '-b:a', '24k', '-f', 'webm'],
  m4a: ['-c:a', 'aac', '-b:a', '32k', '-f', 'ipod'],
};

export const HEAP_CRASH_M4A = repoPath('test', 'fixtures', 'hostile', 'm4a-heap-crash.m4a');

/** Mulberry32: a small seeded generator (the same copies on every run). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A copy with about `fraction` of its bytes (after the first 8, so the container is still told apart) set to random values. */
export function mutate(bytes: Buffer, seed: number, fraction = 0.01): Buffer {
  const out = Buffer.from(bytes);
  const r = rng(seed);
  const flips = Math.max(1, Math.round(out.length * fraction));
  for (let i = 0; i < flips; i++) out[8 + Math.floor(r() * (out.length - 8))] = Math.floor(r() * 256);
  return out;
}

/** Every container's clean file (a few seconds of speech) and `perContainer` mutated copies of each. */
export function buildCorpus(perContainer: number, seed = 30): Array<{ name: string; container: string; bytes: Buffer }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-decode-corpus-'));
  const speech = flite('The quick brown fox jumps over the lazy dog near the river bank.');
  const out: Array<{ name: string; container: string; bytes: Buffer }> = [];
  for (const [container, args] of Object.entries(CONTAINERS)) {
    const file = path.join(dir, `clean.${container}`);
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', speech, '-ac', '1', ...args, file]);
    const clean = readFileSync(file);
    out.push({ name: `${container} clean`, container, bytes: clean });
    for (let i = 0; i < perContainer; i++)
      out.push({ name: `${container} mutated #${i}`, container, bytes: mutate(clean, seed * 1000 + i * 7 + container.length) });
  }
  return out;
}

/** An hour of FLAC silence by ffmpeg (~650 KB; sox took 4 s and wrote 10 MB). */
export function hourOfFlac(dir: string): string {
  const file = path.join(dir, 'hour.flac');
  const args = ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '3600'];
  execFileSync('ffmpeg', [...args, '-c:a', 'flac', '-sample_fmt', 's16', file]);
  return file;
}

/**
 * Two files whose headers declare hours of audio, cheap to make: 24 MB of 8-bit WAV at 1 kHz
 * (6.7 hours of a 100 Hz square wave, written here: sox's synth took 50 CPU s for it) and an hour
 * of FLAC silence by ffmpeg (~650 KB).
 */
export function declaredLongFiles(dir: string): { longWav: string; hourFlac: string } {
  const longWav = path.join(dir, 'long.wav');
  writeFileSync(longWav, squareWav8(1000, 24_000_000, 100));
  const hourFlac = hourOfFlac(dir);
  return { longWav, hourFlac };
}

/** A mono 8-bit unsigned PCM WAV of `samples` samples at `rate` Hz: a square wave of `hz` Hz. */
function squareWav8(rate: number, samples: number, hz: number): Buffer {
  const out = Buffer.alloc(44 + samples);
  out.write('RIFF', 0);
  out.writeUInt32LE(36 + samples, 4);
  out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate, 28); // bytes per second
  out.writeUInt16LE(1, 32); // block align
  out.writeUInt16LE(8, 34);
  out.write('data', 36);
  out.writeUInt32LE(samples, 40);
  const period = Math.round(rate / hz);
  out.fill(64, 44);
  for (let i = 0; i < samples; i += period) out.fill(192, 44 + i, 44 + Math.min(samples, i + period / 2));
  return out;
}
