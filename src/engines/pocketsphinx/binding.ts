// Typed loader of the native PocketSphinx addon (native/pocketsphinx). When the addon is not built
// or the model is not installed, the engine reports itself unavailable with the reason.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config.js';

export interface NativeWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
}

export interface NativeUtterance {
  hyp: string | null;
  words: NativeWord[];
}

export interface NativeDecoder {
  init(): Promise<void>;
  startStream(): void;
  startUtterance(): void;
  process(samples: Int16Array): Promise<{ inSpeech: boolean }>;
  partial(withWords: boolean): NativeUtterance;
  endUtterance(): Promise<NativeUtterance>;
  decodeContinuous(samples: Int16Array): Promise<NativeUtterance[]>;
  lookupWord(word: string): string | null;
  /**
   * Keyword boosting: words missing from the dictionary are added with their phones, and a new
   * search interpolates the language model with a unigram model of the words so that each gains
   * about `probability`. Returns dictionary ids (-1 for words already known). Lasts until reset().
   */
  boost(words: Array<{ word: string; phones: string }>, probability: number): Promise<number[]>;
  /** Reloads the models from their files: the decoder is as created (and cold) again. */
  reset(): Promise<void>;
  lmLog10Prob(word: string): number | null;
  /**
   * Forced alignment: the best placement of exactly `words` (dictionary words, in order) on the
   * recording, decoded as one utterance. `additions` are words to add to the dictionary first (kept
   * until reset()). Needs a decoder made with -remove_silence no. Segments include <sil> and fillers.
   */
  align(samples: Int16Array, words: string[], additions: Array<{ word: string; phones: string }>): Promise<NativeUtterance>;
  /** Keeps the current cepstral mean as the starting point of every later stream (false if the model has no CMN). */
  saveCmn(): boolean;
  /** The saved mean (null before saveCmn()); addons built before it was added lack it. */
  getCmn?(): Float32Array | null;
  /** Takes a mean from getCmn() of a decoder of the same model (false if its length does not fit). */
  setCmn?(mean: Float32Array): boolean;
  /** Frees the models now and trims the C heap (addons built before it was added lack it). */
  free?(): void;
}

export interface NativeModule {
  Decoder: new (args: string[]) => NativeDecoder;
  setLogging(on: boolean): void;
  /** malloc_trim(0) on a libuv thread: true when memory was given back (addons built before it was added lack it). */
  trimHeap?(): Promise<boolean>;
}

export const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
export const MODEL_FILES = {
  hmm: path.join(MODEL_DIR, 'en-us'),
  lm: path.join(MODEL_DIR, 'en-us.lm.bin'),
  dict: path.join(MODEL_DIR, 'cmudict-en-us.dict'),
};
const ADDON = path.join(PROJECT_ROOT, 'native', 'pocketsphinx', 'build', 'Release', 'parla_pocketsphinx.node');

let loaded: { native: NativeModule } | { error: string } | null = null;

export function loadNative(): { native: NativeModule } | { error: string } {
  if (loaded) return loaded;
  const missing = Object.values(MODEL_FILES).filter((f) => !existsSync(f));
  if (missing.length) {
    loaded = { error: `the US English model is not installed (Debian package "pocketsphinx-en-us"; missing ${missing.join(', ')})` };
  } else if (!existsSync(ADDON)) {
    loaded = { error: 'the native PocketSphinx addon is not built (npm run build)' };
  } else {
    try {
      const native = createRequire(import.meta.url)(ADDON) as NativeModule;
      native.setLogging(false);
      loaded = { native };
    } catch (err) {
      loaded = { error: `the native PocketSphinx addon failed to load: ${(err as Error).message}` };
    }
  }
  return loaded;
}
