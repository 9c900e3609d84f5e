// Warm decoders per settings profile, created at start (about 0.5 s and 90 MB each). A fresh
// decoder recognizes its first utterances worse (its cepstral mean is a generic guess), so each
// is warmed with a short recording and the resulting mean becomes every request's starting
// point: the same audio gets the same words on any decoder, whatever it decoded before.
// Without the model lifecycle decoders are never freed; with it (PocketSphinxEngine's `lifecycle`)
// a profile's whole pool is freed when idle for the TTL (free() trims the C heap: without the trim
// libpocketsphinx's memory is returned to the OS only partially).

import { EngineError } from '../engine.js';
import type { NativeModule } from './binding.js';
import { PsDecoder } from './decoder.js';
import { WaitQueue } from '../wait-queue.js';
import { decoderArgs } from './profiles.js';

export class DecoderPool {
  private readonly idle = new Map<string, PsDecoder[]>();
  private readonly waiters = new Map<string, WaitQueue<PsDecoder>>();
  private ready: Promise<void> | null = null;

  constructor(
    private readonly mod: NativeModule,
    private readonly profiles: string[],
    private readonly perProfile: number,
    private readonly warmup: Int16Array | null,
    preload = true,
  ) {
    if (preload) this.start();
  }

  /** Creates and warms the decoders (once). */
  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const { mod, profiles, perProfile, warmup } = this;
    this.ready = (async () => {
      const all = profiles.flatMap((p) => Array.from({ length: perProfile }, () => new PsDecoder(mod, decoderArgs(p), p)));
      await Promise.all(
        all.map(async (d) => {
          await d.init();
          if (warmup) {
            await d.decodeContinuous(warmup);
            await d.run((n) => n.saveCmn());
          }
        }),
      );
      for (const d of all) this.idle.set(d.profile, [...(this.idle.get(d.profile) ?? []), d]);
    })();
    // Failures surface on first use; keep the rejection from being unhandled meanwhile.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  whenReady(): Promise<void> {
    return this.start();
  }

  /** An idle decoder of the profile, or the first one released; an abort leaves the line. */
  async acquire(profile: string, signal?: AbortSignal): Promise<PsDecoder> {
    await this.start();
    signal?.throwIfAborted();
    const list = this.idle.get(profile);
    if (!list) throw new EngineError('pocketsphinx', `no decoders for profile ${profile}`, false);
    return list.pop() ?? this.line(profile).wait(signal);
  }

  release(d: PsDecoder): void {
    if (!this.line(d.profile).give(d)) this.idle.get(d.profile)!.push(d);
  }

  private line(profile: string): WaitQueue<PsDecoder> {
    let q = this.waiters.get(profile);
    if (!q) this.waiters.set(profile, (q = new WaitQueue()));
    return q;
  }

  /**
   * Frees every decoder (all must be back: the model lifecycle unloads a pool only when no
   * request holds it). The pool is unusable afterwards.
   */
  async free(): Promise<void> {
    await this.ready?.catch(() => undefined);
    const all = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(all.map((d) => d.run((n) => n.free?.())));
  }

  waiting(): number {
    let n = 0;
    for (const q of this.waiters.values()) n += q.length;
    return n;
  }
}
