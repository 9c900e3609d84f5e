// Typed loader of the native Flite addon (native/flite, decision #88): libflite with its voices
// registered once and kept, synthesis on libuv's pool. When the addon is not built (or fails to
// load) FliteEngine runs Debian's `flite` program instead, with the same audio.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config.js';

export interface FliteNative {
  /**
   * Synthesizes `text` with a Flite voice. `settings` are the program's `--setf name=value`
   * floats, set on this utterance only; a non-zero cancel[0] stops the vocoder (the promise then
   * rejects). The samples are the program's, sample for sample. With `onChunk`, the audio is
   * handed over as the vocoder finishes it (~100 ms pieces, in order, on this thread, before the
   * promise settles) and the promise carries only what was not (usually nothing).
   */
  synthesize(
    voice: string,
    text: string,
    settings: string[],
    cancel?: Int32Array,
    onChunk?: (samples: Int16Array, sampleRate: number) => void,
  ): Promise<{ samples: Int16Array; sampleRate: number }>;
  /** The voices this build has. */
  voices(): string[];
}

const ADDON = path.join(PROJECT_ROOT, 'native', 'flite', 'build', 'Release', 'parla_flite.node');

let loaded: { native: FliteNative } | { error: string } | null = null;

/** The addon, or why it cannot be used (then the program serves). */
export function loadFliteNative(): { native: FliteNative } | { error: string } {
  if (loaded) return loaded;
  if (!existsSync(ADDON)) loaded = { error: 'the native Flite addon is not built (npm run build; Debian package "flite1-dev")' };
  else {
    try {
      loaded = { native: createRequire(import.meta.url)(ADDON) as FliteNative };
    } catch (err) {
      loaded = { error: `the native Flite addon failed to load: ${(err as Error).message}` };
    }
  }
  return loaded;
}
