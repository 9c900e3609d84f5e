// Whether Debian's ffmpeg can be run here. It is optional: batch decoding falls back on it for
// files the WASM decoders refuse, and real-time Opus needs it; without it those paths are
// refused or not offered. Probed once per process (one `ffmpeg -version`), shared by both.

import { spawn } from 'node:child_process';

let probe: Promise<boolean> | null = null;

/** True when `ffmpeg -version` runs and exits 0; the first call probes, later ones share its answer. */
export function ffmpegAvailable(): Promise<boolean> {
  probe ??= new Promise<boolean>((resolve) => {
    const p = spawn('ffmpeg', ['-version'], { stdio: 'ignore' });
    p.on('error', () => resolve(false));
    p.on('close', (code) => resolve(code === 0));
  });
  return probe;
}
