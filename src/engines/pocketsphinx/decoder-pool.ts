// Warm decoders per settings profile (about 0.5 s and 90 MB each). A fresh decoder recognizes its
// first utterances worse (its cepstral mean is a generic guess), so each starts from the warm
// mean of a short recording (warm-start.ts), which also becomes every request's starting point:
// the same audio gets the same words on any decoder, whatever it decoded before.
//
// Only the first decoder of each profile is created up front; the others are created one after
// another in the background once the first has served (or someone waits in line for it) and join
// the pool as they are ready, so the first request after a (re)load pays for one decoder's
// creation, not for all of them competing with it for the cores.
// Without the model lifecycle decoders are never freed; with it (PocketSphinxEngine's `lifecycle`)
// a profile's whole pool is freed when idle for the TTL (free() trims the C heap: without the trim
// libpocketsphinx's memory is returned to the OS only partially).

import { EngineError } from '../engine.js';
import type { NativeModule } from './binding.js';
import { PsDecoder } from './decoder.js';
import { WaitQueue } from '../wait-queue.js';
import { decoderArgs } from './profiles.js';
import type { WarmStart } from './warm-start.js';

export class DecoderPool {
  private readonly idle = new Map<string, PsDecoder[]>();
  private readonly waiters = new Map<string, WaitQueue<PsDecoder>>();
  private ready: Promise<void> | null = null;
  /** The background creation of the decoders after each profile's first one (once started). */
  private growing: Promise<void> | null = null;
  private freed = false;
  private created = 0;

  constructor(
    private readonly mod: NativeModule,
    private readonly profiles: string[],
    private readonly perProfile: number,
    private readonly warm: WarmStart | null,
    preload = true,
  ) {
    if (preload) this.start();
  }

  private async create(profile: string): Promise<PsDecoder> {
    const d = new PsDecoder(this.mod, decoderArgs(profile), profile);
    await d.init();
    try {
      await this.warm?.warm(d);
    } catch (err) {
      await d.run((n) => n.free?.()).catch(() => undefined);
      throw err;
    }
    this.created++;
    return d;
  }

  /** Creates and warms each profile's first decoder (once), then the rest in the background. */
  private start(): Promise<void> {
    if (this.ready) return this.ready;
    this.ready = (async () => {
      const first = await Promise.allSettled(this.profiles.map((p) => this.create(p)));
      const failed = first.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) {
        await Promise.all(first.map((r) => (r.status === 'fulfilled' ? r.value.run((n) => n.free?.()) : undefined)));
        throw failed.reason;
      }
      for (const r of first) if (r.status === 'fulfilled') this.idle.set(r.value.profile, [r.value]);
    })();
    // Failures surface on first use; keep the rejection from being unhandled meanwhile.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  /**
   * One decoder at a time, profile by profile: a request being served keeps a core. A creation
   * that fails leaves the pool smaller (it still serves, with fewer decoders at once).
   */
  private grow(): void {
    if (this.growing || this.freed || this.perProfile < 2) return;
    this.growing = this.growAll();
  }

  private async growAll(): Promise<void> {
    for (let i = 1; i < this.perProfile; i++) {
      for (const profile of this.profiles) {
        if (this.freed) return;
        const d = await this.create(profile).catch(() => null);
        if (!d) continue;
        if (this.freed) await d.run((n) => n.free?.());
        else this.release(d);
      }
    }
  }

  /** Resolves when each profile has its first decoder (the others may still be being created). */
  whenReady(): Promise<void> {
    return this.start();
  }

  /** Resolves when every decoder has been created (or its creation failed). */
  async whenComplete(): Promise<void> {
    await this.start();
    this.grow();
    await this.growing;
  }

  /** Decoders created so far (all profiles). */
  size(): number {
    return this.created;
  }

  /** An idle decoder of the profile, or the first one released; an abort leaves the line. */
  async acquire(profile: string, signal?: AbortSignal): Promise<PsDecoder> {
    await this.start();
    signal?.throwIfAborted();
    const list = this.idle.get(profile);
    if (!list) throw new EngineError('pocketsphinx', `no decoders for profile ${profile}`, false);
    const d = list.pop();
    if (d) return d;
    this.grow();
    return this.line(profile).wait(signal);
  }

  release(d: PsDecoder): void {
    if (!this.line(d.profile).give(d)) this.idle.get(d.profile)!.push(d);
    this.grow();
  }

  private line(profile: string): WaitQueue<PsDecoder> {
    let q = this.waiters.get(profile);
    if (!q) this.waiters.set(profile, (q = new WaitQueue()));
    return q;
  }

  /**
   * Frees every decoder (all must be back: the model lifecycle unloads a pool only when no
   * request holds it), after any background creation stopped. The pool is unusable afterwards.
   */
  async free(): Promise<void> {
    this.freed = true;
    await this.ready?.catch(() => undefined);
    await this.growing;
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
