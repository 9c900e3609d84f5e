// PocketSphinxEngine: offline US English recognition (BSD licence) through the native binding.
// Batch recognition splits a recording into utterances at pauses; streams feed audio as it comes
// and end utterances on request (the real-time session decides when, from its VAD).
//
// Keyword boosting (Cipher's `prompt`, Lucid's `keywords`) is per request and runs on decoders of
// its own (boost-pool.ts), reloaded from the model files after each use, so it cannot leak. A
// word missing from the dictionary gets a Flite letter-to-sound pronunciation and is added; every
// listed word gains language-model probability through a keyword model interpolated with the
// main one (native/pocketsphinx/src/addon.cc explains why the main model is never modified).

import { EngineOverloadedError } from '../../domain/overload.js';
import {
  EngineError,
  type RecognitionOptions,
  type RecognitionResult,
  type RecognizedUtterance,
  type SttEngine,
  type SttStream,
  type WordTiming,
} from '../engine.js';
import type { ModelLifecycle } from '../model-lifecycle.js';
import { loadNative, type NativeDecoder, type NativeUtterance } from './binding.js';
import { BoostDecoderPool } from './boost-pool.js';
import type { PsDecoder } from './decoder.js';
import { DecoderPool } from './decoder-pool.js';
import { boundedWait } from '../wait-queue.js';
import { normalizeKeyword, pronounce } from './pronounce.js';
import { PROFILES } from './profiles.js';
import { WarmStart } from './warm-start.js';

export const PS_LANGUAGES = ['en', 'en-US'];
const SAMPLE_RATE = 16000;
/**
 * Probability each keyword gains in the language model: about 1000x a uniform unigram over the
 * model's 134k words, the boost the spike measured best.
 */
const BOOST_PROBABILITY = 0.0075;
/** Most distinct words boosted per request. */
export const MAX_KEYWORDS = 100;
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

/** About what one decoder adds to resident memory (US English model, measured 90-97 MB). */
const DECODER_MB = 95;

export class PocketSphinxEngine implements SttEngine {
  readonly id = 'pocketsphinx';
  private readonly pool: DecoderPool | null;
  /** With a model lifecycle: each profile's plain decoders, loaded and unloaded as one model. */
  private readonly managed: { lifecycle: ModelLifecycle; names: string[] } | null = null;
  private readonly boostPool: BoostDecoderPool | null;
  private readonly problem: string | null;
  private readonly pronunciations = new Map<string, string | null>();
  private readonly plainDecoders: number;
  private readonly boostDecoders: number;
  private readonly decoderWaitMs: number;

  /**
   * decodersPerProfile plain decoders per profile: the first on first use (at start with preload),
   * the others in the background once it has served (decision #69); up to boostDecodersPerProfile (default: as many) more are created as boosted
   * requests and streams first need them (a keyword stream holds one while its audio flows: src/stt/live/recognizer.ts).
   */
  constructor(opts: {
    decodersPerProfile: number;
    boostDecodersPerProfile?: number;
    profiles?: string[];
    warmup?: Int16Array | null;
    preload?: boolean;
    lifecycle?: ModelLifecycle;
    /**
     * How long a request or stream waits in line for a free decoder before it is refused with
     * EngineOverloadedError (503 SERVICE_OVERLOADED, Retry-After); PARLA_STT_DECODER_WAIT_SECONDS,
     * default 30 s. Without it one account's work could keep another's waiting without an answer
     * (decision #31: nothing queues without bound).
     */
    decoderWaitMs?: number;
  }) {
    this.decoderWaitMs = opts.decoderWaitMs ?? 30_000;
    this.plainDecoders = opts.decodersPerProfile;
    this.boostDecoders = opts.boostDecodersPerProfile ?? opts.decodersPerProfile;
    const loaded = loadNative();
    if ('error' in loaded) {
      this.problem = loaded.error;
      this.pool = null;
      this.boostPool = null;
      return;
    }
    this.problem = null;
    const profiles = opts.profiles ?? Object.keys(PROFILES);
    const mod = loaded.native;
    // Computed now (a few hundred ms, a few MB, freed): each decoder created later only sets it.
    const warm = opts.warmup ? new WarmStart(mod, opts.warmup) : null;
    void warm?.computed();
    // An addon built before free() existed cannot unload: its decoders then stay, as before.
    const canFree = typeof (mod.Decoder.prototype as Partial<NativeDecoder>).free === 'function';
    if (opts.lifecycle && canFree) {
      const lifecycle = opts.lifecycle;
      this.pool = null;
      this.managed = { lifecycle, names: profiles.map((p) => `pocketsphinx:${p}`) };
      for (const profile of profiles) {
        lifecycle.register<DecoderPool>({
          name: `pocketsphinx:${profile}`,
          sizeMB: DECODER_MB * opts.decodersPerProfile,
          load: async () => {
            const pool = new DecoderPool(mod, [profile], opts.decodersPerProfile, warm, true);
            try {
              await pool.whenReady();
            } catch (err) {
              await pool.free().catch(() => undefined);
              throw err;
            }
            return pool;
          },
          unload: (pool) => pool.free(),
        });
      }
      if (opts.preload ?? true) void this.whenReady();
    } else {
      this.pool = new DecoderPool(mod, profiles, opts.decodersPerProfile, warm, opts.preload ?? true);
    }
    // Boost decoders live outside the lifecycle (each is reloaded after every use) but follow its
    // TTL: freed once idle that long, when the addon can free.
    const boostIdleMs = opts.lifecycle && canFree ? opts.lifecycle.ttlMs : null;
    this.boostPool = new BoostDecoderPool(loaded.native, opts.boostDecodersPerProfile ?? opts.decodersPerProfile, warm, boostIdleMs);
  }

  /** Keyword (boost) decoders that exist now: made on first need, freed when idle for the lifecycle's TTL. */
  get boostDecodersResident(): number {
    return this.boostPool?.size ?? 0;
  }

  status(): { available: boolean; reason?: string } {
    return this.problem ? { available: false, reason: this.problem } : { available: true };
  }

  languages(): string[] {
    return this.problem ? [] : [...PS_LANGUAGES];
  }

  /** Without a lifecycle (or an addon that cannot free) the decoders stay for good: undefined. */
  lifecycleModel(profile: string): string | undefined {
    return this.managed ? `pocketsphinx:${profile}` : undefined;
  }

  whenReady(): Promise<void> {
    if (this.managed) return this.managed.lifecycle.preload(this.managed.names);
    return this.pool ? this.pool.whenReady() : Promise.resolve();
  }

  /** The decoders of the pool these options use: plain ones per profile, or the boosted ones. */
  concurrency(opts: RecognitionOptions): number {
    return keywordList(opts.keywords).length > 0 ? this.boostDecoders : this.plainDecoders;
  }

  /** A plain decoder of the profile (through the lifecycle when there is one) and how to give it back. */
  private async plainDecoder(profile: string, signal?: AbortSignal): Promise<{ dec: PsDecoder; release: () => void }> {
    if (this.managed) {
      const lease = await this.managed.lifecycle.acquire<DecoderPool>(`pocketsphinx:${profile}`, signal);
      try {
        const dec = await lease.model.acquire(profile, signal);
        return {
          dec,
          release: () => {
            lease.model.release(dec);
            lease.release();
          },
        };
      } catch (err) {
        lease.release();
        throw err;
      }
    }
    if (!this.pool) throw new EngineError(this.id, this.problem ?? 'unavailable', false);
    const pool = this.pool;
    const dec = await pool.acquire(profile, signal);
    return { dec, release: () => pool.release(dec) };
  }

  /**
   * The decoder pool for these options: boosted work never touches the plain decoders. The wait in
   * line is bounded (decoderWaitMs): past it the caller gets EngineOverloadedError, never a hang.
   */
  private async acquire(opts: RecognitionOptions, signal?: AbortSignal): Promise<{ dec: PsDecoder; release: () => void }> {
    if (this.problem) throw new EngineError(this.id, this.problem, false);
    checkOptions(opts);
    if (!PROFILES[opts.profile]) throw new EngineError(this.id, `unknown settings profile "${opts.profile}"`, false);
    const wait = boundedWait(
      signal,
      this.decoderWaitMs,
      () =>
        new EngineOverloadedError(
          'Every speech recognizer is busy with other work; try again shortly.',
          Math.max(1, Math.ceil(this.decoderWaitMs / 4000)),
        ),
    );
    try {
      if (keywordList(opts.keywords).length > 0) {
        const boost = this.boostPool!;
        const dec = await boost.acquire(opts.profile, wait.signal);
        return { dec, release: () => boost.release(dec) };
      }
      return await this.plainDecoder(opts.profile, wait.signal);
    } finally {
      wait.done();
    }
  }

  private async pronunciation(word: string): Promise<string | null> {
    if (!this.pronunciations.has(word)) this.pronunciations.set(word, await pronounce(word));
    return this.pronunciations.get(word) ?? null;
  }

  /** Boosts the request's keywords on a boost decoder (runs inside its queue). */
  private async boost(d: NativeDecoder, keywords: string[] | undefined): Promise<void> {
    const entries: Array<{ word: string; phones: string }> = [];
    for (const word of keywordList(keywords)) {
      const phones = d.lookupWord(word) ?? (await this.pronunciation(word));
      if (phones) entries.push({ word, phones });
    }
    if (entries.length > 0) await d.boost(entries, BOOST_PROBABILITY);
  }

  async recognize(pcm16k: Int16Array, opts: RecognitionOptions, signal?: AbortSignal): Promise<RecognitionResult> {
    if (!(pcm16k instanceof Int16Array)) throw new TypeError('recognize(pcm16k): 16 kHz mono samples as an Int16Array');
    // A request whose client already left takes no decoder (a decoding in progress runs to its end).
    signal?.throwIfAborted();
    const { dec, release } = await this.acquire(opts, signal);
    try {
      const utterances = await dec.run(async (d) => {
        await this.boost(d, opts.keywords);
        return d.decodeContinuous(pcm16k);
      });
      return {
        engine: this.id,
        duration: pcm16k.length / SAMPLE_RATE,
        utterances: utterances.map((u) => toUtterance(cleanWords(u))).filter((u): u is RecognizedUtterance => u !== null),
      };
    } finally {
      release();
    }
  }

  async openStream(opts: RecognitionOptions): Promise<PocketSphinxStream> {
    const { dec, release } = await this.acquire(opts);
    try {
      await dec.run(async (d) => {
        await this.boost(d, opts.keywords);
        // Frame counts (word times) run from the last ps_start_stream: the stream's timeline.
        d.startStream();
      });
    } catch (err) {
      release();
      throw err;
    }
    return new PocketSphinxStream(dec, release);
  }
}

function checkOptions(opts: RecognitionOptions): void {
  if (typeof opts !== 'object' || opts === null) throw new TypeError('recognition options must be an object');
  if (typeof opts.language !== 'string') throw new TypeError('options.language must be a string');
  if (!PS_LANGUAGES.includes(opts.language))
    throw new EngineError('pocketsphinx', `language "${opts.language}" is not served (only ${PS_LANGUAGES.join(', ')})`, false);
  if (typeof opts.profile !== 'string') throw new TypeError('options.profile must be a string');
  if (opts.keywords !== undefined && (!Array.isArray(opts.keywords) || opts.keywords.some((k) => typeof k !== 'string'))) {
    throw new TypeError('options.keywords must be an array of strings');
  }
}

/** The distinct dictionary-safe words of the keywords (phrases are split into words). */
export function keywordList(keywords: string[] | undefined): string[] {
  if (!keywords?.length) return [];
  const words = keywords
    .flatMap((k) => k.split(/\s+/))
    .map(normalizeKeyword)
    .filter((w): w is string => w !== null);
  return [...new Set(words)].slice(0, MAX_KEYWORDS);
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
    if (!(pcm16k instanceof Int16Array)) throw new TypeError('write(pcm16k): 16 kHz mono samples as an Int16Array');
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
