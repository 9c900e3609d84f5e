// Decoders for keyword-boosted work (Cipher's `prompt`, Lucid's `keywords`, real-time `keywords`).
//
// Boosting adds words to a decoder's dictionary and language model, and this libpocketsphinx can
// neither remove a word nor safely re-weight one (re-adding a unigram corrupts its memory). So
// boosted work never runs on the plain pool's decoders: it gets a decoder of its own from here,
// created on first need (up to `max` per profile), and after each request or stream the decoder
// is reloaded from the model files (ps_reinit) before anyone else gets it. A
// boost therefore cannot leak into any later request, boosted or not.

import type { NativeModule } from './binding.js';
import { PsDecoder } from './decoder.js';
import { decoderArgs } from './profiles.js';

export class BoostDecoderPool {
  private readonly idle = new Map<string, PsDecoder[]>();
  private readonly live = new Map<string, number>();
  private readonly waiters = new Map<string, Array<{ resolve: (d: PsDecoder) => void; reject: (e: unknown) => void }>>();

  constructor(
    private readonly mod: NativeModule,
    private readonly max: number,
    private readonly warmup: Int16Array | null,
  ) {}

  /** A new decoder is initialised and warmed; a used one is reloaded (its saved warm cepstral mean survives). */
  private async prepare(d: PsDecoder, fresh: boolean): Promise<PsDecoder> {
    if (!fresh) {
      await d.run((n) => n.reset());
      return d;
    }
    await d.init();
    if (this.warmup) {
      await d.decodeContinuous(this.warmup);
      await d.run((n) => n.saveCmn());
    }
    return d;
  }

  /** Creates a decoder for a waiter when there is room; a failure goes to that waiter. */
  private grow(profile: string): void {
    const q = this.waiters.get(profile) ?? [];
    while (q.length > 0 && (this.live.get(profile) ?? 0) < this.max) {
      const w = q.shift()!;
      this.live.set(profile, (this.live.get(profile) ?? 0) + 1);
      this.prepare(new PsDecoder(this.mod, decoderArgs(profile), profile), true).then(w.resolve, (err: unknown) => {
        this.live.set(profile, (this.live.get(profile) ?? 1) - 1);
        w.reject(err);
      });
    }
  }

  acquire(profile: string, signal?: AbortSignal): Promise<PsDecoder> {
    decoderArgs(profile); // throws for an unknown profile before anything waits
    const d = this.idle.get(profile)?.pop();
    if (d) return Promise.resolve(d);
    return new Promise<PsDecoder>((resolve, reject) => {
      const q = this.waiters.get(profile) ?? [];
      const entry = {
        resolve: (dec: PsDecoder) => {
          signal?.removeEventListener('abort', onAbort);
          if (signal?.aborted) this.hand(dec);
          else resolve(dec);
        },
        reject: (err: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        const i = q.indexOf(entry);
        if (i >= 0) q.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      q.push(entry);
      this.waiters.set(profile, q);
      this.grow(profile);
    });
  }

  /** Takes a used decoder back: it is reloaded before its next use. */
  release(d: PsDecoder): void {
    this.prepare(d, false).then(
      (ready) => this.hand(ready),
      () => {
        // A decoder that cannot reload is dropped; make room for a new one.
        this.live.set(d.profile, (this.live.get(d.profile) ?? 1) - 1);
        this.grow(d.profile);
      },
    );
  }

  private hand(d: PsDecoder): void {
    const next = this.waiters.get(d.profile)?.shift();
    if (next) next.resolve(d);
    else this.idle.set(d.profile, [...(this.idle.get(d.profile) ?? []), d]);
  }

  /** Boosted requests waiting for a decoder. */
  waiting(): number {
    let n = 0;
    for (const q of this.waiters.values()) n += q.length;
    return n;
  }
}
