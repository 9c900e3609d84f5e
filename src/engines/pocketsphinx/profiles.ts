// Decoder settings per profile. Product models bind to a profile in config/parla.json
// (sttBindings): cipher-fast -> fast, cipher-max -> accurate, and so on. Measured in the spike on
// LibriVox: the fast settings halve the decoding time at the same word error rate.

import { MODEL_FILES } from './binding.js';

export const PROFILES: Record<string, Record<string, string>> = {
  fast: { '-maxhmmpf': '3000', '-pl_window': '10' },
  accurate: {},
};

export function decoderArgs(profile: string): string[] {
  const settings = PROFILES[profile];
  if (!settings) throw new Error(`unknown PocketSphinx profile ${profile}`);
  // -bestpath yes keeps per-word posterior confidences meaningful.
  const all: Record<string, string> = { '-hmm': MODEL_FILES.hmm, '-lm': MODEL_FILES.lm, '-dict': MODEL_FILES.dict, '-bestpath': 'yes', ...settings };
  return Object.entries(all).flatMap(([k, v]) => [k, v]);
}
