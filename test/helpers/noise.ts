// Noise-only audio for false-start checks (test/stt/live/turns-noise.test.ts, bench/turns.ts):
// white and pink noise (sox, repeatable seed), music-like chords and keyboard-like clicks from a
// seeded generator, all 16 kHz mono 16-bit: the same samples on every run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

export type NoiseKind = 'white' | 'pink' | 'music' | 'clicks';
export const NOISE_KINDS: NoiseKind[] = ['white', 'pink', 'music', 'clicks'];

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** `seconds` of noise of `kind` at 16 kHz. */
export function noise(kind: NoiseKind, seconds: number): Int16Array {
  const n = Math.round(seconds * 16000);
  const rand = seeded(12345);
  if (kind === 'white' || kind === 'pink') {
    const dir = mkdtempSync(path.join(tmpdir(), 'parla-noise-'));
    try {
      const out = path.join(dir, 'n.wav');
      // -R: a repeatable seed; vol 0.3: loud (peaks near -10 dBFS), as a fan or a bad line.
      execFileSync('sox', ['-R', '-n', '-r', '16000', '-c', '1', '-b', '16', out, 'synth', String(seconds), `${kind}noise`, 'vol', '0.3']);
      return float32ToInt16(decodeWav(readFileSync(out)).channels[0]!);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const pcm = new Int16Array(n);
  if (kind === 'music') {
    // Chords of three harmonic tones (110-880 Hz) changing every 200-600 ms, with attack and decay.
    for (let at = 0; at < n; ) {
      const len = Math.round((0.2 + rand() * 0.4) * 16000);
      const notes = [0, 1, 2].map(() => 110 * 2 ** (Math.floor(rand() * 36) / 12));
      for (let i = 0; i < len && at + i < n; i++) {
        const env = Math.min(1, i / 160) * Math.exp(-i / (len / 2));
        let v = 0;
        for (const f of notes) for (let h = 1; h <= 4; h++) v += Math.sin((2 * Math.PI * f * h * i) / 16000) / h;
        pcm[at + i] = Math.round(v * env * 3000);
      }
      at += len;
    }
    return pcm;
  }
  // Keyboard-like: 5 ms bursts of loud noise every 150-400 ms.
  for (let at = 0; at < n - 80; at += 2400 + Math.floor(rand() * 4000))
    for (let i = 0; i < 80; i++) pcm[at + i] = Math.round((rand() * 2 - 1) * 12000);
  return pcm;
}
