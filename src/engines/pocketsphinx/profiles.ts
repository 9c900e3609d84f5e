// Decoder settings per profile. Product models bind to a profile in config/parla.json
// (sttBindings): cipher-fast -> fast, cipher-max -> accurate, and so on. Measured in the spike on
// LibriVox: the fast settings halve the decoding time at the same word error rate.
//
// The fast profile also skips the second (flat-lexicon) search pass. That pass runs over the whole
// utterance when it ends, so it made every final result wait about 50 ms per second of speech
// (165-200 ms for a 3.3 s sentence, against 20-40 ms without it) and it dominated real-time
// endpointing latency. Its accuracy gain on the fast settings is within noise (pocketsphinx_continuous
// with the fast settings, 2026-11-23: LibriVox WER 42.3% with and without it; Flite kal16 and slt and
// eSpeak NG on 8 sentences, 114.6 vs 115.9 summed WER points).
//
// The accurate profile is the library's full search (beams 1e-48 / 7e-29, up to 30,000 active HMMs
// per frame, phone-loop lookahead of 5 frames), without the flat pass either, and a word insertion
// penalty of 0.2 instead of 0.65. Measured on the five LibriVox recordings (71 words, engine
// alone, bench/stt-profiles.ts, 2026-11-25): the defaults with the flat pass made 25 errors,
// against 22 for the fast profile (that pass rescoring with the trigram lattice made cipher-max
// less accurate than cipher-fast); without it 22; with the lower insertion penalty 21. A higher
// language weight (8, 9, 10) made 27-32, wider beams (1e-60, no HMM limit) changed nothing at
// twice the time. One word is 1.4 points on this set: the ranking, not the size of the gaps, is
// what these figures support.

import { MODEL_FILES } from './binding.js';

export const PROFILES: Record<string, Record<string, string>> = {
  fast: { '-maxhmmpf': '3000', '-pl_window': '10', '-fwdflat': 'no' },
  accurate: { '-fwdflat': 'no', '-wip': '0.2' },
};

export function decoderArgs(profile: string): string[] {
  const settings = PROFILES[profile];
  if (!settings) throw new Error(`unknown PocketSphinx profile ${profile}`);
  // -bestpath yes keeps per-word posterior confidences meaningful.
  const all: Record<string, string> = {
    '-hmm': MODEL_FILES.hmm,
    '-lm': MODEL_FILES.lm,
    '-dict': MODEL_FILES.dict,
    '-bestpath': 'yes',
    ...settings,
  };
  return Object.entries(all).flat();
}
