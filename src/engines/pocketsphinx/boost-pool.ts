// Decoders for keyword-boosted work (Cipher's `prompt`, Lucid's `keywords`, real-time `keywords`).
//
// Boosting adds words to a decoder's dictionary and language model, and this libpocketsphinx can
// neither remove a word nor safely re-weight one (re-adding a unigram corrupts its memory). So
// boosted work never runs on the plain pool's decoders: it gets a decoder of its own from here,
// created on first need (up to `max` per profile), and after each request or stream the decoder
// is reloaded from the model files (ps_reinit) before anyone else gets it. A
// boost therefore cannot leak into any later request, boosted or not.
// With `idleMs` (the model lifecycle's TTL), a decoder that waited that long unused is freed
// (~90 MB each): one keyword request no longer keeps its decoder for the life of the process.

import type { NativeModule } from './binding.js';
import { PsDecoder } from './decoder.js';
import { WaitQueue } from '../wait-queue.js';
import { decoderArgs } from './profiles.js';
import type { WarmStart } from './warm-start.js';

export class BoostDecoderPool {
  private readonly idle = new Map<string, PsDecoder[]>();
  private readonly live = new Map<string, number>();
  /** Decoders being created (and warmed) per profile: each will go to whoever is first in line. */
  private readonly preparing = new Map<string, number>();
  private readonly waiters = new Map<string, WaitQueue<PsDecoder>>();
  /** The free-when-idle timer of each idle decoder (with idleMs). */
  private readonly idleTimers = new Map<PsDecoder, NodeJS.Timeout>();

  constructor(
    private readonly mod: NativeModule,
    private readonly max: number,
    private readonly warm: WarmStart | null,
    private readonly idleMs: number | null = null,
  ) {}

  /** Boost decoders that exist now (idle, in use or being made), all profiles. */
  get size(): number {
    let n = 0;
    for (const c of this.live.values()) n += c;
    return n;
  }

  /** A new decoder is initialised and warmed; a used one is reloaded (its saved warm cepstral mean survives). */
  private async prepare(d: PsDecoder, fresh: boolean): Promise<PsDecoder> {
    if (!fresh) {
      await d.run((n) => n.reset());
      return d;
    }
    await d.init();
    await this.warm?.warm(d);
    return d;
  }

  /**
   * Creates decoders while more callers wait than decoders are being made, up to max per profile.
   * A new decoder goes to the first in line when it is ready (whoever left the line meanwhile does
   * not hold it up); a creation that fails fails the first in line.
   */
  private grow(profile: string): void {
    const line = this.line(profile);
    const count = (m: Map<string, number>) => m.get(profile) ?? 0;
    while (line.length > count(this.preparing) && count(this.live) < this.max) {
      this.live.set(profile, count(this.live) + 1);
      this.preparing.set(profile, count(this.preparing) + 1);
      this.prepare(new PsDecoder(this.mod, decoderArgs(profile), profile), true).then(
        (d) => {
          this.preparing.set(profile, count(this.preparing) - 1);
          this.hand(d);
        },
        (err: unknown) => {
          this.preparing.set(profile, count(this.preparing) - 1);
          this.live.set(profile, count(this.live) - 1);
          line.fail(err);
          this.grow(profile);
        },
      );
    }
  }

  /** An idle decoder of the profile, a new one, or the first one reloaded; an abort leaves the line. */
  acquire(profile: string, signal?: AbortSignal): Promise<PsDecoder> {
    decoderArgs(profile); // throws for an unknown profile before anything waits
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    const d = this.idle.get(profile)?.pop();
    if (d) {
      clearTimeout(this.idleTimers.get(d));
      this.idleTimers.delete(d);
      return Promise.resolve(d);
    }
    const waiting = this.line(profile).wait(signal);
    this.grow(profile);
    return waiting;
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
    if (this.line(d.profile).give(d)) return;
    this.idle.set(d.profile, [...(this.idle.get(d.profile) ?? []), d]);
    if (this.idleMs === null) return;
    const timer = setTimeout(() => this.freeIdle(d), this.idleMs);
    // An idle decoder must not keep the process alive.
    timer.unref();
    this.idleTimers.set(d, timer);
  }

  /** Frees a decoder that stayed idle for idleMs; the next boosted request makes a new one. */
  private freeIdle(d: PsDecoder): void {
    this.idleTimers.delete(d);
    const list = this.idle.get(d.profile) ?? [];
    if (!list.includes(d)) return;
    this.idle.set(
      d.profile,
      list.filter((x) => x !== d),
    );
    this.live.set(d.profile, (this.live.get(d.profile) ?? 1) - 1);
    void d.run((n) => n.free?.()).catch(() => undefined);
  }

  private line(profile: string): WaitQueue<PsDecoder> {
    let q = this.waiters.get(profile);
    if (!q) this.waiters.set(profile, (q = new WaitQueue()));
    return q;
  }

  /** Boosted requests waiting for a decoder. */
  waiting(): number {
    let n = 0;
    for (const q of this.waiters.values()) n += q.length;
    return n;
  }
}
