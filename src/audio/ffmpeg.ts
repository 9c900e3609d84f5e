// Whether Debian's ffmpeg can be run here. It is optional: batch decoding falls back on it for
// files the WASM decoders refuse, and real-time Opus needs it; without it those paths are
// refused or not offered. Probed once per process (one `ffmpeg -version`), shared by both.

import { sharedSpawner } from '../process/spawner.js';

let probe: Promise<boolean> | null = null;

/** True when `ffmpeg -version` runs and exits 0; the first call probes, later ones share its answer. */
export function ffmpegAvailable(): Promise<boolean> {
  // Through the spawner like every program the service starts (src/process/spawner.ts).
  probe ??= sharedSpawner()
    .run('ffmpeg', ['-version'], AbortSignal.timeout(10_000))
    .then(
      (s) => s.code === 0,
      () => false,
    );
  return probe;
}
