// Loaded models as a shared, bounded resource. A neural model costs tens of megabytes to gigabytes
// of memory and seconds to load, so it is loaded on first use (or at start when preloaded), shared
// by every request that needs it while loaded, unloaded after it has been idle for the TTL, and
// the least recently used idle models are unloaded first when loading another would pass the
// memory budget. Loading runs beside other requests (the loader itself is asynchronous: a worker
// thread); requests that need a model being loaded wait for it, but only up to a bound, then get
// SERVICE_OVERLOADED. Engine-agnostic: a model is a name, an estimated size and load/unload.

import { EngineOverloadedError } from '../domain/overload.js';

export interface ModelSpec<T> {
  name: string;
  /** Estimated resident memory once loaded, MB (what the budget counts). */
  sizeMB: number;
  load(): Promise<T>;
  unload(handle: T): Promise<void>;
}

export interface LifecycleOptions {
  /** A model unused for this long is unloaded. */
  ttlMs: number;
  /** Resident models (loaded and loading) together stay under this, evicting idle ones first. */
  memoryBudgetMB: number;
  /** Longest a request waits for a model to load (or for room to load it). */
  loadWaitMs: number;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export interface Lease<T> {
  readonly model: T;
  /** Gives the model back (once; later calls do nothing). */
  release(): void;
}

type State<T> =
  | { kind: 'unloaded' }
  | { kind: 'loading'; promise: Promise<T> }
  | { kind: 'loaded'; handle: T }
  | { kind: 'unloading'; promise: Promise<void> };

interface Entry<T> {
  spec: ModelSpec<T>;
  state: State<T>;
  users: number;
  lastUsed: number;
  idleTimer: NodeJS.Timeout | null;
  loads: number;
}

export interface ResidentModel {
  name: string;
  state: 'loading' | 'loaded' | 'unloading';
  sizeMB: number;
  users: number;
  /** ms since it was last given back (0 while in use). */
  idleMs: number;
}

export class ModelLifecycle {
  private readonly entries = new Map<string, Entry<unknown>>();
  /** Woken whenever memory may have been freed or a model became idle (waiters for room retry). */
  private changed: Array<() => void> = [];
  private closed = false;

  constructor(private readonly opts: LifecycleOptions) {}

  /** How long a model stays loaded unused (engines keeping memory of their own outside it follow it). */
  get ttlMs(): number {
    return this.opts.ttlMs;
  }

  register<T>(spec: ModelSpec<T>): void {
    if (this.entries.has(spec.name)) throw new Error(`model ${spec.name} is registered twice`);
    this.entries.set(spec.name, {
      spec: spec as ModelSpec<unknown>,
      state: { kind: 'unloaded' },
      users: 0,
      lastUsed: 0,
      idleTimer: null,
      loads: 0,
    });
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The model loaded (loading it if needed, waiting a bounded time); release the lease when done. */
  async acquire<T>(name: string, signal?: AbortSignal): Promise<Lease<T>> {
    const e = this.entries.get(name) as Entry<T> | undefined;
    if (!e) throw new Error(`unknown model ${name}`);
    const deadline = Date.now() + this.opts.loadWaitMs;
    for (;;) {
      signal?.throwIfAborted();
      if (this.closed) throw new EngineOverloadedError('The server is shutting down.', 5);
      const s = e.state;
      if (s.kind === 'loaded') return this.lease(e, s.handle);
      if (s.kind === 'loading') await this.within(s.promise, deadline, name, signal);
      else if (s.kind === 'unloading')
        await this.within(
          s.promise.catch(() => undefined),
          deadline,
          name,
          signal,
        );
      else if (this.makeRoom(e)) this.startLoad(e).catch(() => undefined);
      else await this.within(new Promise<void>((r) => this.changed.push(r)), deadline, name, signal);
    }
  }

  /** Loads the named models now (at start); failures are logged, not thrown. */
  async preload(names: string[]): Promise<void> {
    await Promise.all(
      names.map(async (name) => {
        if (!this.entries.has(name)) {
          this.opts.log?.warn({ model: name }, 'PARLA_MODELS_PRELOAD names a model that is not installed and verified');
          return;
        }
        try {
          (await this.acquire(name)).release();
        } catch (err) {
          this.opts.log?.warn({ model: name, err }, 'model preload failed');
        }
      }),
    );
  }

  /** Drops a loaded model whose handle died on its own (its worker ended): the next use loads it again. */
  invalidate(name: string, handle: unknown): void {
    const e = this.entries.get(name);
    if (!e || e.state.kind !== 'loaded' || e.state.handle !== handle) return;
    this.clearIdle(e);
    e.state = { kind: 'unloaded' };
    this.opts.log?.warn({ model: name }, 'loaded model ended unexpectedly; it loads again on next use');
    this.wake();
  }

  resident(): ResidentModel[] {
    const now = Date.now();
    return [...this.entries.values()]
      .filter((e) => e.state.kind !== 'unloaded')
      .map((e) => ({
        name: e.spec.name,
        state: e.state.kind as ResidentModel['state'],
        sizeMB: e.spec.sizeMB,
        users: e.users,
        idleMs: e.users > 0 ? 0 : now - e.lastUsed,
      }));
  }

  /** Times the model was loaded since start. */
  loadCount(name: string): number {
    return this.entries.get(name)?.loads ?? 0;
  }

  /** Unloads everything (shutdown); later acquires fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    await Promise.all(
      [...this.entries.values()].map(async (e) => {
        if (e.state.kind === 'loading') await e.state.promise.catch(() => undefined);
        // Shutdown: models still in use (streams left open) go too.
        if (e.state.kind === 'loaded') await this.unload(e, true);
        else if (e.state.kind === 'unloading') await e.state.promise.catch(() => undefined);
      }),
    );
  }

  private lease<T>(e: Entry<T>, handle: T): Lease<T> {
    e.users++;
    this.clearIdle(e);
    let done = false;
    return {
      model: handle,
      release: () => {
        if (done) return;
        done = true;
        e.users--;
        e.lastUsed = Date.now();
        if (e.users === 0 && e.state.kind === 'loaded') {
          e.idleTimer = setTimeout(() => void this.unload(e), this.opts.ttlMs);
          e.idleTimer.unref();
          this.wake();
        }
      },
    };
  }

  private startLoad<T>(e: Entry<T>): Promise<T> {
    const started = Date.now();
    const promise = e.spec.load().then(
      (handle) => {
        if (this.closed) {
          void e.spec.unload(handle).catch(() => undefined);
          e.state = { kind: 'unloaded' };
          throw new EngineOverloadedError('The server is shutting down.', 5);
        }
        e.state = { kind: 'loaded', handle };
        e.loads++;
        e.lastUsed = Date.now();
        this.opts.log?.info({ model: e.spec.name, loadMs: Date.now() - started, sizeMB: e.spec.sizeMB }, 'model loaded');
        // Loaded for a request that gave up meanwhile: idle from now on.
        if (e.users === 0) {
          e.idleTimer = setTimeout(() => void this.unload(e), this.opts.ttlMs);
          e.idleTimer.unref();
        }
        this.wake();
        return handle;
      },
      (err: unknown) => {
        e.state = { kind: 'unloaded' };
        this.opts.log?.warn({ model: e.spec.name, err }, 'model failed to load');
        this.wake();
        throw err;
      },
    );
    e.state = { kind: 'loading', promise };
    return promise;
  }

  private unload<T>(e: Entry<T>, force = false): Promise<void> {
    if (e.state.kind !== 'loaded' || (e.users > 0 && !force)) return Promise.resolve();
    this.clearIdle(e);
    const handle = e.state.handle;
    const promise = e.spec
      .unload(handle)
      .catch((err: unknown) => this.opts.log?.warn({ model: e.spec.name, err }, 'model unload failed'))
      .finally(() => {
        e.state = { kind: 'unloaded' };
        this.opts.log?.info({ model: e.spec.name }, 'model unloaded');
        this.wake();
      });
    e.state = { kind: 'unloading', promise };
    return promise;
  }

  /**
   * True when e may start loading now: idle models are unloaded, least recently used first, until
   * e fits the budget. A model larger than the whole budget still loads when nothing else is
   * resident (else it could never serve); it waits while models in use hold the memory.
   */
  private makeRoom(e: Entry<unknown>): boolean {
    const residentMB = () =>
      [...this.entries.values()].filter((x) => x.state.kind !== 'unloaded').reduce((sum, x) => sum + x.spec.sizeMB, 0);
    const idle = [...this.entries.values()]
      .filter((x) => x !== e && x.state.kind === 'loaded' && x.users === 0)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    let freeing = [...this.entries.values()].filter((x) => x.state.kind === 'unloading').reduce((sum, x) => sum + x.spec.sizeMB, 0);
    while (residentMB() - freeing + e.spec.sizeMB > this.opts.memoryBudgetMB && idle.length > 0) {
      const victim = idle.shift()!;
      freeing += victim.spec.sizeMB;
      this.opts.log?.info(
        { model: victim.spec.name, for: e.spec.name, budgetMB: this.opts.memoryBudgetMB },
        'model evicted (memory budget)',
      );
      void this.unload(victim);
    }
    // Models being unloaded still hold memory: wait for them rather than overshoot.
    const others = [...this.entries.values()].filter((x) => x !== e && x.state.kind !== 'unloaded');
    return residentMB() + e.spec.sizeMB <= this.opts.memoryBudgetMB || others.length === 0;
  }

  private clearIdle(e: Entry<unknown>): void {
    if (e.idleTimer) clearTimeout(e.idleTimer);
    e.idleTimer = null;
  }

  private wake(): void {
    const waiting = this.changed;
    this.changed = [];
    for (const w of waiting) w();
  }

  /** Waits for p, but not past the deadline (then SERVICE_OVERLOADED) nor past an abort. */
  private async within<T>(p: Promise<T>, deadline: number, name: string, signal?: AbortSignal): Promise<void> {
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const bounded = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new EngineOverloadedError(`The speech model ${name} is loading (or waiting for memory); try again shortly.`, 5)),
        Math.max(0, left),
      );
      if (signal) {
        onAbort = () => reject(signal.reason ?? new Error('aborted'));
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    try {
      // A failed load rejects here: every request that waited for it gets the loader's error.
      await Promise.race([p, bounded]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
