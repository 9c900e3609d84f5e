// A bounded worker-thread pool, generic over the tasks its workers run (a task table module:
// src/tasks/table.ts for the main pool every CPU-heavy task runs on, synthesis, encoding, decoding,
// resampling; src/tts/readings/readings-tasks.ts for the readings thread), so the event loop stays free. Bounded queue: when it is full, callers get
// PoolOverloadedError (the edges answer 503 SERVICE_OVERLOADED) at once instead of waiting without
// bound (decisions #31). Synthesis is bounded by whole requests (WorkerPool.admit), other work by tasks.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { FairTaskQueue, type FairQueueOptions } from './fair-queue.js';
import type { TaskMap, TaskShapes } from './task-map.js';
import { PoolOverloadedError } from '../domain/overload.js';
import { currentTenant } from '../domain/tenant.js';

// From TypeScript sources the worker needs tsx registered first (worker-dev.mjs); compiled, worker.js.
const workerFile = import.meta.url.endsWith('.ts') ? './worker-dev.mjs' : './worker.js';

/**
 * The buffers of these arrays that can be moved to another thread instead of copied: each array
 * must span its whole buffer (a view into a larger one, such as a pooled Buffer, would take its
 * neighbours along) and the buffer must not be shared. Only pass arrays the caller will not touch
 * again: moving detaches them on the sending side.
 */
export function movableBuffers(views: ArrayBufferView[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const v of views) {
    const b = v.buffer;
    if (b instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === b.byteLength && b.byteLength > 0) out.add(b);
  }
  return [...out];
}

export interface PoolOptions {
  threads: number;
  /** Tasks allowed to wait for a free worker. */
  maxQueue: number;
  /** The URL of the task table module each worker loads (a TaskTable: its import.meta.url). */
  tasks: string;
}

export interface PoolStats {
  threads: number;
  queued: number;
  running: number;
  completed: number;
  /** Mean time tasks waited in the queue, ms. */
  waitMeanMs: number;
}

/** The flow (request) the current async context belongs to; see WorkerPool.inFlow. */
const flows = new AsyncLocalStorage<object>();

/** A synthesis request let in by WorkerPool.admit. */
export interface Admission {
  /** Runs fn in the request's flow: its pool tasks are never refused for a full queue. */
  run<T>(fn: () => T): T;
  /** Frees the request's place; idempotent. */
  release(): void;
}

export class WorkerPool<M extends TaskShapes<M> = TaskMap> {
  private readonly piscina: Piscina;
  private readonly maxQueue: number;
  private readonly threads: number;
  /** Synthesis requests admitted and not yet released. */
  private admittedJobs = 0;
  /** Flows of admitted requests (they outlive their place: see admit). */
  private readonly admittedFlows = new WeakSet<object>();

  /**
   * Runs fn as one flow: every task it starts, however deep (engines, finishing), takes turns with
   * other flows' tasks in the queue (FairTaskQueue) instead of queueing first come, first served.
   * Inside a flow already (an admitted request), fn stays in it.
   */
  static inFlow<T>(fn: () => Promise<T>): Promise<T> {
    return flows.getStore() ? fn() : flows.run({}, fn);
  }

  constructor(opts: PoolOptions) {
    this.maxQueue = opts.maxQueue;
    this.threads = opts.threads;
    this.piscina = new Piscina({
      filename: new URL(workerFile, import.meta.url).href,
      minThreads: opts.threads,
      maxThreads: opts.threads,
      // Unbounded here: admit() bounds synthesis requests and run() every other task; the tasks
      // of an admitted request are never refused, and one request can have many (chunks, breaks).
      maxQueue: Infinity,
      idleTimeout: 2 ** 31 - 1,
      concurrentTasksPerWorker: 1,
      taskQueue: new FairTaskQueue(),
      workerData: { tasks: opts.tasks },
    });
  }

  /**
   * Lets one synthesis request in, or throws PoolOverloadedError (503 at the edge) when
   * `threads + maxQueue` requests are in already: one running per worker, PARLA_QUEUE_MAX waiting.
   * Called before credits are held, so a refusal costs nothing.
   *
   * Requests are counted, not their tasks: a long text is split into sentence chunks (and split at
   * breaks) that run in parallel, and a per-task bound would refuse a request because of its own
   * chunks, or fail it half-way. Each admitted request has at most `threads` chunks in flight per
   * segment, so the work waiting in the pool stays proportional to the requests let in. A stream
   * releases its place once its first audio is out: from then on it synthesizes at most one sentence
   * ahead of a client that may read slowly, and holding the place would let idle streams refuse
   * new requests while the workers have nothing to do; its later tasks stay admitted.
   */
  admit(): Admission {
    const limit = this.threads + this.maxQueue;
    if (this.admittedJobs >= limit) {
      throw new PoolOverloadedError(1, { requests_in_progress: this.admittedJobs, limit });
    }
    this.admittedJobs++;
    const flow = {};
    this.admittedFlows.add(flow);
    let released = false;
    return {
      run: (fn) => flows.run(flow, fn),
      release: () => {
        if (released) return;
        released = true;
        this.admittedJobs--;
      },
    };
  }

  /** Synthesis requests admitted now (see admit). */
  get admitted(): number {
    return this.admittedJobs;
  }

  /**
   * Runs a task on a worker; rejects with PoolOverloadedError when the queue is full, unless the
   * task belongs to an admitted synthesis request (see admit). `move`: arrays
   * of the payload handed over without a copy (see movableBuffers; they are detached here after).
   * `ports`: message ports in the payload (a task that reports progress), handed to the worker.
   */
  async run<N extends keyof M & string>(
    name: N,
    payload: M[N]['payload'],
    opts: { move?: ArrayBufferView[]; ports?: MessagePort[]; signal?: AbortSignal } = {},
  ): Promise<M[N]['result']> {
    const flow = flows.getStore();
    if (!(flow && this.admittedFlows.has(flow)) && this.piscina.queueSize >= this.maxQueue) {
      throw new PoolOverloadedError(1, { queued: this.piscina.queueSize });
    }
    const runOpts: Parameters<Piscina['run']>[1] = { name: 'runTask' };
    const transferList: Array<ArrayBuffer | MessagePort> = [...(opts.move ? movableBuffers(opts.move) : []), ...(opts.ports ?? [])];
    if (transferList.length > 0) runOpts.transferList = transferList as never;
    if (opts.signal) runOpts.signal = opts.signal;
    // Symbol keys are not cloned to the worker: the flow stays here, for the queue.
    const queueOptions: FairQueueOptions = { flow, tenant: currentTenant() };
    return (await this.piscina.run({ name, payload, [Piscina.queueOptionsSymbol]: queueOptions }, runOpts)) as M[N]['result'];
  }

  stats(): PoolStats {
    const waitTime = this.piscina.histogram.waitTime;
    return {
      threads: this.piscina.threads.length,
      queued: this.piscina.queueSize,
      running: this.piscina.threads.length - this.idleThreads(),
      completed: this.piscina.completed,
      waitMeanMs: Number.isFinite(waitTime.mean) ? waitTime.mean : 0,
    };
  }

  /** The ids of the worker threads now: a thread terminated and replaced shows up as a new id. */
  threadIds(): number[] {
    return this.piscina.threads.map((t) => t.threadId).sort((a, b) => a - b);
  }

  private idleThreads(): number {
    // piscina does not expose idle workers directly; utilization is the closest proxy.
    return Math.max(0, Math.round(this.piscina.threads.length * (1 - this.piscina.utilization)));
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
