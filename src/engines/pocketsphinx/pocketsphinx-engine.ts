// PocketSphinxEngine: offline US English recognition (BSD licence) through the native binding.
// Batch recognition splits a recording into utterances at pauses; streams feed audio as it comes
// and end utterances on request (the real-time session decides when, from its VAD).
//
// Keyword boosting (Cipher's `prompt`, Lucid's `keywords`) is per request: a word missing from the
// dictionary gets a Flite letter-to-sound pronunciation and is added, every listed word gets a
// language-model unigram boost, and when the request ends the boosts are undone (original unigram
// probability restored; added words pushed back to a negligible probability), so no later request
// on the same decoder is affected.

import { EngineError, type RecognitionOptions, type RecognitionResult, type RecognizedUtterance, type SttEngine, type SttStream, type WordTiming } from '../engine.js';
import { loadNative, type NativeDecoder, type NativeUtterance } from './binding.js';
import type { PsDecoder } from './decoder.js';
import { DecoderPool } from './decoder-pool.js';
import { normalizeKeyword, pronounce } from './pronounce.js';
import { PROFILES } from './profiles.js';

export const PS_LANGUAGES = ['en', 'en-US'];
const SAMPLE_RATE = 16000;
/** Unigram weight (relative to uniform) for boosted words; the spike found 1000 best. */
const BOOST_WEIGHT = 1000;
/** What an added word falls back to after its request: effectively never recognized. */
const NEGLIGIBLE_WEIGHT = 1e-9;
const FILLERS = /^(<s>|<\/s>|<sil>|\[[a-z_]+\]|\+\+[a-z]+\+\+)$/i;

export function cleanWords(u: NativeUtterance, offset = 0): WordTiming[] {
  return u.words
    .filter((w) => !FILLERS.test(w.word))
    .map((w) => ({
      word: w.word.replace(/\(\d+\)$/, ''),
      start: +(w.start + offset).toFixed(3),
      end: +(w.end + offset).toFixed(3),
      confidence: Math.max(0, Math.min(1, +w.confidence.toFixed(3))),
    }));
}

function toUtterance(words: WordTiming[]): RecognizedUtterance | null {
  if (words.length === 0) return null;
  return { start: words[0]!.start, end: words[words.length - 1]!.end, words };
}

interface Boost {
  word: string;
  added: boolean;
  originalLog10: number | null;
}

export class PocketSphinxEngine implements SttEngine {
  readonly id = 'pocketsphinx';
  private readonly pool: DecoderPool | null;
  private readonly problem: string | null;
  private readonly pronunciations = new Map<string, string | null>();

  constructor(opts: { decodersPerProfile: number; profiles?: string[]; warmup?: Int16Array | null; preload?: boolean }) {
    const loaded = loadNative();
    if ('error' in loaded) {
      this.problem = loaded.error;
      this.pool = null;
      return;
    }
    this.problem = null;
    this.pool = new DecoderPool(loaded.native, opts.profiles ?? Object.keys(PROFILES), opts.decodersPerProfile, opts.warmup ?? null, opts.preload ?? true);
  }

  status(): { available: boolean; reason?: string } {
    return this.problem ? { available: false, reason: this.problem } : { available: true };
  }

  languages(): string[] {
    return this.problem ? [] : [...PS_LANGUAGES];
  }

  whenReady(): Promise<void> {
    return this.pool ? this.pool.whenReady() : Promise.resolve();
  }

  private requirePool(): DecoderPool {
    if (!this.pool) throw new EngineError(this.id, this.problem ?? 'unavailable', false);
    return this.pool;
  }

  private async pronunciation(word: string): Promise<string | null> {
    if (!this.pronunciations.has(word)) this.pronunciations.set(word, await pronounce(word));
    return this.pronunciations.get(word) ?? null;
  }

  /** Applies the boosts on the decoder; returns what is needed to undo them. */
  private async boost(d: NativeDecoder, keywords: string[]): Promise<Boost[]> {
    const boosts: Boost[] = [];
    const words = [...new Set(keywords.flatMap((k) => k.split(/\s+/)).map(normalizeKeyword).filter((w): w is string => w !== null))].slice(0, 50);
    for (const word of words) {
      let added = false;
      if (d.lookupWord(word) === null) {
        const phones = await this.pronunciation(word);
        if (!phones) continue;
        if ((await d.addWord(word, phones)) < 0) continue;
        added = true;
      }
      const originalLog10 = added ? null : d.lmLog10Prob(word);
      if (originalLog10 !== null && originalLog10 > Math.log10(BOOST_WEIGHT) - 5) {
        // Already a frequent word: boosting would lower it.
        boosts.push({ word, added, originalLog10: null });
        continue;
      }
      d.lmSetUnigram(word, BOOST_WEIGHT);
      boosts.push({ word, added, originalLog10 });
    }
    return boosts;
  }

  private restore(d: NativeDecoder, boosts: Boost[]): void {
    for (const b of boosts) {
      if (b.added) {
        d.lmSetUnigram(b.word, NEGLIGIBLE_WEIGHT);
      } else if (b.originalLog10 !== null) {
        // weight = probability x vocabulary size; the boosted probability tells the size.
        const boosted = d.lmLog10Prob(b.word);
        if (boosted === null) continue;
        const vocabulary = BOOST_WEIGHT / 10 ** boosted;
        d.lmSetUnigram(b.word, 10 ** b.originalLog10 * vocabulary);
      }
    }
  }

  async recognize(pcm16k: Int16Array, opts: RecognitionOptions, signal?: AbortSignal): Promise<RecognitionResult> {
    const pool = this.requirePool();
    const dec = await pool.acquire(opts.profile, signal);
    try {
      const utterances = await dec.run(async (d) => {
        const boosts = opts.keywords?.length ? await this.boost(d, opts.keywords) : [];
        try {
          return await d.decodeContinuous(pcm16k);
        } finally {
          this.restore(d, boosts);
        }
      });
      return {
        duration: pcm16k.length / SAMPLE_RATE,
        utterances: utterances.map((u) => toUtterance(cleanWords(u))).filter((u): u is RecognizedUtterance => u !== null),
      };
    } finally {
      pool.release(dec);
    }
  }

  async openStream(opts: RecognitionOptions): Promise<SttStream> {
    const pool = this.requirePool();
    const dec = await pool.acquire(opts.profile);
    const boosts = await dec.run(async (d) => {
      d.startStream();
      return opts.keywords?.length ? this.boost(d, opts.keywords) : [];
    });
    return new PocketSphinxStream(dec, () => {
      void dec.run((d) => this.restore(d, boosts)).finally(() => pool.release(dec));
    });
  }
}

/** A live recognition stream on one decoder. Times are on the stream's timeline from 0. */
export class PocketSphinxStream implements SttStream {
  private open = false;
  private closed = false;
  private lastInSpeech = false;

  constructor(
    private readonly dec: PsDecoder,
    private readonly onClose: () => void,
  ) {}

  /** The decoder's own voice activity flag after the last write. */
  get inSpeech(): boolean {
    return this.lastInSpeech;
  }

  async write(pcm16k: Int16Array): Promise<void> {
    if (this.closed) throw new EngineError('pocketsphinx', 'stream closed', false);
    await this.dec.run(async (d) => {
      if (!this.open) {
        d.startUtterance();
        this.open = true;
      }
      this.lastInSpeech = (await d.process(pcm16k)).inSpeech;
    });
  }

  async partial(): Promise<RecognizedUtterance | null> {
    if (!this.open || this.closed) return null;
    return this.dec.run((d) => toUtterance(cleanWords(d.partial(true))));
  }

  async finalizeUtterance(): Promise<RecognizedUtterance | null> {
    if (!this.open || this.closed) return null;
    this.open = false;
    return this.dec.run(async (d) => toUtterance(cleanWords(await d.endUtterance())));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.open) await this.finalizeUtterance().catch(() => null);
    this.closed = true;
    this.onClose();
  }
}
