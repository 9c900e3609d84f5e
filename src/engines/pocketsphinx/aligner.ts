// Forced alignment of a known English text to audio with PocketSphinx: word timings for engines
// that report none themselves (Flite, neural voices). The spike measured this against Flite's own
// segment times at ~19 ms mean boundary error (docs/benchmarks.md has this build's figure).
// Alignment decoders are separate from the recognition ones: no language model (a grammar of the
// text replaces it), and no voice activity detection, which would drop the frames of a pause and
// shift every later time. They are made on first use (~0.1 s each) and reused; the decoding itself
// runs on the libuv pool, off the event loop.

import { EngineError } from '../engine.js';
import { WaitQueue } from '../wait-queue.js';
import { loadNative, MODEL_FILES, type NativeModule } from './binding.js';
import { PsDecoder } from './decoder.js';
import { pronounce } from './pronounce.js';
import { snapEdgesToSound } from './sound-edges.js';

/** Times of one word on the aligned audio, seconds; null when it could not be placed. */
export type AlignedSpan = { start: number; end: number } | null;

/** The audio rate the acoustic model takes. */
export const ALIGN_RATE = 16000;

/**
 * Alignment decoders: no language model, no voice activity detection, and 160 frames a second
 * instead of the model's 100. A phone state lasts at least one frame, so at 100 fps fast speech
 * (speed 2, 30-40 ms phones) was squeezed out of place: 34 ms mean boundary error on Flite at speed
 * 2, 10 ms at 160 fps, with speed 1 unchanged (bench/word-timings.ts; 150 fps is not a whole number
 * of samples per frame at 16 kHz and drifts; 200 fps was no better and cost more).
 */
const ALIGN_ARGS = () => ['-hmm', MODEL_FILES.hmm, '-dict', MODEL_FILES.dict, '-remove_silence', 'no', '-frate', '160'];

/** Letter-to-sound pronunciations kept for words missing from the dictionary (Flite's rules). */
const PRONUNCIATION_CACHE = 5000;
/** Words added to one decoder's dictionary before it is reloaded from its files (memory bound). */
const MAX_ADDED_WORDS = 20000;
/** Concurrent `flite -ps` processes for one text's unknown words, and for all texts together. */
const PRONOUNCE_LANES = 4;
const PRONOUNCE_PROCESSES = 4;

/** A token of text as the dictionary spells it: lowercase, typographic apostrophes made plain. */
export function dictionaryForm(token: string): string {
  let w = token.toLowerCase().replace(/\u2019/g, "'");
  while (w.startsWith("'")) w = w.slice(1);
  while (w.endsWith("'")) w = w.slice(0, -1);
  return w;
}

interface AlignDecoder {
  decoder: PsDecoder;
  added: number;
}

export class ForcedAligner {
  private readonly idle: AlignDecoder[] = [];
  private readonly line = new WaitQueue<AlignDecoder>();
  private created = 0;
  private readonly pronunciations = new Map<string, Promise<string | null>>();
  private spawning = 0;
  private readonly spawnLine = new WaitQueue<void>();

  constructor(private readonly opts: { decoders?: number; fliteBinary?: string } = {}) {}

  /** Whether alignment can run here (the native addon and the English model are installed). */
  status(): { available: boolean; reason?: string } {
    const res = loadNative();
    if ('error' in res) return { available: false, reason: res.error };
    // An addon built before align() existed (npm run build rebuilds it when its source is newer).
    if (typeof res.native.Decoder.prototype.align !== 'function')
      return { available: false, reason: 'the native PocketSphinx addon predates forced alignment: rebuild it (npm run build)' };
    return { available: true };
  }

  /**
   * Places `tokens` (words of the text in order, as written) on 16 kHz audio. Words the
   * dictionary lacks get Flite's pronunciation; a word nothing can pronounce is left out of the
   * grammar and comes back null, as do words after the point where the audio ran out.
   */
  async align(pcm16k: Int16Array, tokens: string[], signal?: AbortSignal): Promise<AlignedSpan[]> {
    const st = this.status();
    if (!st.available) throw new EngineError('pocketsphinx', st.reason ?? 'unavailable', false);
    const res = loadNative() as { native: NativeModule };
    const slot = await this.acquire(res.native, signal);
    try {
      return await this.alignOn(slot, pcm16k, tokens);
    } finally {
      this.release(slot);
    }
  }

  private async alignOn(slot: AlignDecoder, pcm16k: Int16Array, tokens: string[]): Promise<AlignedSpan[]> {
    const forms = tokens.map(dictionaryForm);
    // lookupWord is a hash lookup (synchronous): fine on the event loop.
    const known = await slot.decoder.run((d) => forms.map((f) => f !== '' && /^\S+$/.test(f) && d.lookupWord(f) !== null));
    const unknown = [...new Set(forms.filter((f, i) => !known[i] && f !== '' && /^\S+$/.test(f)))];
    const phones = new Map<string, string | null>();
    await lanes(unknown, PRONOUNCE_LANES, async (f) => phones.set(f, await this.pronunciation(f)));
    const additions = unknown.filter((f) => phones.get(f)).map((f) => ({ word: f, phones: phones.get(f)! }));
    if (slot.added + additions.length > MAX_ADDED_WORDS) {
      await slot.decoder.run((d) => d.reset());
      slot.added = 0;
    }
    slot.added += additions.length;
    // Indices of the tokens that go into the grammar, in order.
    const placed: number[] = [];
    forms.forEach((f, i) => {
      if (known[i] || phones.get(f)) placed.push(i);
    });
    const spans: AlignedSpan[] = tokens.map(() => null);
    if (placed.length === 0 || pcm16k.length === 0) return spans;
    const utt = await slot.decoder.run((d) =>
      d.align(
        pcm16k,
        placed.map((i) => forms[i]!),
        additions,
      ),
    );
    const words = utt.words.filter((w) => !w.word.startsWith('<') && !w.word.startsWith('['));
    // A grammar the audio could not complete gives its best partial path: the first words only.
    for (let k = 0; k < Math.min(words.length, placed.length); k++) {
      const w = words[k]!;
      spans[placed[k]!] = { start: w.start, end: w.end };
    }
    return snapEdgesToSound(pcm16k, ALIGN_RATE, spans);
  }

  private pronunciation(form: string): Promise<string | null> {
    let p = this.pronunciations.get(form);
    if (!p) {
      if (this.pronunciations.size >= PRONUNCIATION_CACHE) this.pronunciations.delete(this.pronunciations.keys().next().value!);
      p = this.spawnSlot().then(async (release) => {
        try {
          return await pronounce(form, this.opts.fliteBinary);
        } finally {
          release();
        }
      });
      this.pronunciations.set(form, p);
    }
    return p;
  }

  /**
   * One of PRONOUNCE_PROCESSES places for a `flite -ps` process: a text of hundreds of unknown
   * words, or many such texts at once, never fork more than that many processes at a time. A
   * finishing process hands its place straight to the next in line.
   */
  private async spawnSlot(): Promise<() => void> {
    if (this.spawning < PRONOUNCE_PROCESSES) this.spawning++;
    else await this.spawnLine.wait();
    return () => {
      if (!this.spawnLine.give()) this.spawning--;
    };
  }

  private async acquire(mod: NativeModule, signal?: AbortSignal): Promise<AlignDecoder> {
    signal?.throwIfAborted();
    const free = this.idle.pop();
    if (free) return free;
    if (this.created < (this.opts.decoders ?? 2)) {
      this.created++;
      try {
        const decoder = new PsDecoder(mod, ALIGN_ARGS(), 'align');
        await decoder.init();
        return { decoder, added: 0 };
      } catch (err) {
        this.created--;
        // A caller waiting for this decoder would otherwise wait for one that never comes.
        this.line.fail(err);
        throw err;
      }
    }
    return this.line.wait(signal);
  }

  private release(slot: AlignDecoder): void {
    if (!this.line.give(slot)) this.idle.push(slot);
  }
}

async function lanes<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}

let shared: ForcedAligner | null = null;

/** The node's aligner (two decoders, made when the first text is aligned). */
export function sharedAligner(): ForcedAligner {
  shared ??= new ForcedAligner();
  return shared;
}
