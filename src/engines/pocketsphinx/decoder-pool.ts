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
import { decoderArgs } from './profiles.js';

export class DecoderPool {
  private readonly idle = new Map<string, PsDecoder[]>();
  private readonly waiters = new Map<string, Array<(d: PsDecoder) => void>>();
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

  async acquire(profile: string, signal?: AbortSignal): Promise<PsDecoder> {
    await this.start();
    const list = this.idle.get(profile);
    if (!list) throw new EngineError('pocketsphinx', `no decoders for profile ${profile}`, false);
    const d = list.pop();
    if (d) return d;
    return new Promise<PsDecoder>((resolve, reject) => {
      const q = this.waiters.get(profile) ?? [];
      const entry = (dec: PsDecoder) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(dec);
      };
      const onAbort = () => {
        const i = q.indexOf(entry);
        if (i >= 0) q.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      q.push(entry);
      this.waiters.set(profile, q);
    });
  }

  release(d: PsDecoder): void {
    const next = this.waiters.get(d.profile)?.shift();
    if (next) next(d);
    else this.idle.get(d.profile)!.push(d);
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
