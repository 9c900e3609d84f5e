// A short real utterance to warm fresh decoders with (their first utterances are recognized
// worse). Made with Flite when it is installed; without it, decoders start cold.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeWav } from '../../audio/wav.js';
import { float32ToInt16 } from '../../audio/pcm.js';
import { resampleInt16 } from '../../audio/resample.js';

export function warmupUtterance(): Int16Array | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-warm-'));
  try {
    const file = path.join(dir, 'w.wav');
    const res = spawnSync(
      'flite',
      ['-voice', 'kal16', '-t', 'The quick brown fox jumps over the lazy dog, and then it goes home.', '-o', file],
      { timeout: 10_000 },
    );
    if (res.status !== 0) return null;
    const wav = decodeWav(readFileSync(file));
    return resampleInt16(float32ToInt16(wav.channels[0]!), wav.sampleRate, 16000);
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
