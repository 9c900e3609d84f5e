// The service's side of the decoder processes (child.ts says why decoding runs in processes of its
// own, decision #42). Up to `processes` decoders, each started by the spawner's helper
// (src/process/spawner.ts: never forked from the service, whose fork would stall the event loop)
// and fed one upload at a time over its socket; at most `maxQueue` uploads wait for one, and at most
// `accountQueue` of one account, beyond that PoolOverloadedError (503, as a full worker pool). The
// waiting accounts take turns for a free decoder (round robin, decision #58): an account with many
// uploads waiting delays another's by one decode at most, not by its whole queue. A decoder that dies, passes its timeout
// or is aborted fails only the request it was decoding (AudioDecodeError: 422 INVALID_AUDIO) and
// is replaced on the next request. One that grew past `recycleMb` after a decode, or sat idle for
// `idleMs`, is ended, so the memory a large file took is given back to the machine.

import type { PipedRun, ProcessSpawner } from '../../process/spawner.js';
import { helperEntry } from '../../process/entry.js';
import { PoolOverloadedError } from '../../domain/overload.js';
import { currentTenant } from '../../domain/tenant.js';
import { AudioDecodeError } from '../decode.js';
import { encodeFrame, FrameReader, type FrameHeader } from './frames.js';

export interface DecoderOptions {
  /** Decoder processes at once (default: the worker thread count). */
  processes: number;
  /** Uploads allowed to wait for a decoder. */
  maxQueue: number;
  /** Uploads of one account allowed to wait (PARLA_DECODE_ACCOUNT_QUEUE; default half of maxQueue, at least 1). */
  accountQueue?: number;
  /** Resident-memory bound of one decoder process, MB (PARLA_DECODE_MEMORY_MB): PCM and WASM memory are outside V8's heap. */
  memoryMb: number;
  /**
   * V8 heap bound of one decoder process, MB (PARLA_DECODE_HEAP_MB). The decoders keep samples in
   * typed arrays, outside the heap, so a real file needs little of it; a small bound makes a file
   * that grows JavaScript objects without end fail in a second or two instead of after a minute.
   */
  heapMb: number;
  /** One decode's wall-time bound, ms (PARLA_DECODE_TIMEOUT_SECONDS). */
  timeoutMs: number;
  /** A decoder resident above this after a decode is ended (default: a quarter of memoryMb). */
  recycleMb?: number;
  /** An idle decoder is ended after this long (default 20 s). */
  idleMs?: number;
}

/** The upload is longer than the cap it was decoded with; `declared`: read from its header, nothing decoded. */
export class DecodeTooLongError extends Error {
  constructor(
    readonly seconds: number,
    readonly declared: boolean,
  ) {
    super(`the audio is ${seconds.toFixed(1)} s long`);
    this.name = 'DecodeTooLongError';
  }
}

type Reply = { header: FrameHeader; body: Buffer };
type Waiter = { resolve(d: Decoder): void; reject(e: Error): void };

interface Decoder {
  run: PipedRun;
  abort: AbortController;
  reader: FrameReader;
  /** The request being answered. */
  waiting: { resolve(r: Reply): void; reject(e: Error): void } | null;
  idle: NodeJS.Timeout | null;
  dead: boolean;
}

// From TypeScript sources (tests, tsx) the decoder needs tsx's hooks; compiled, plain JavaScript.
const childEntry = helperEntry(import.meta.url, 'child');

export class DecoderProcesses {
  private readonly idleDecoders: Decoder[] = [];
  private live = 0;
  /** Uploads waiting for a decoder, by account ('' for the node's own work), accounts in turn order. */
  private readonly queue = new Map<string, Waiter[]>();
  private queued = 0;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly spawner: ProcessSpawner,
    private readonly o: DecoderOptions,
  ) {}

  /**
   * The upload as 16 kHz mono PCM. Throws DecodeTooLongError past `maxSeconds` (from the header
   * before decoding when it declares a length), AudioDecodeError when it is not audio or its decoder
   * failed, PoolOverloadedError when every decoder is busy and the queue is full.
   */
  async decode(bytes: Uint8Array, maxSeconds: number, signal?: AbortSignal): Promise<Int16Array> {
    const r = await this.request({ op: 'decode', maxSeconds: Number.isFinite(maxSeconds) ? maxSeconds : null }, bytes, signal);
    if (r.header.ok === true) {
      const b = r.body;
      // A fresh copy, aligned for Int16Array (the frame's body may start at an odd offset).
      const pcm = new Int16Array(b.byteLength >> 1);
      Buffer.from(pcm.buffer).set(b.subarray(0, pcm.byteLength));
      return pcm;
    }
    if (r.header.kind === 'too_long') throw new DecodeTooLongError(Number(r.header.seconds), r.header.declared === true);
    throw new AudioDecodeError(String(r.header.reason ?? 'the audio could not be decoded'));
  }

  /** A stored file's declared length (seconds; null when its container does not say), decoding nothing. */
  async declaredSecondsOfFile(path: string, signal?: AbortSignal): Promise<number | null> {
    const r = await this.request({ op: 'probe', path }, new Uint8Array(0), signal);
    return typeof r.header.declared === 'number' ? r.header.declared : null;
  }

  private async request(header: Record<string, unknown>, bytes: Uint8Array, signal?: AbortSignal): Promise<Reply> {
    signal?.throwIfAborted();
    const d = await this.acquire(signal);
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => this.kill(d, new AudioDecodeError('the request was aborted'));
    try {
      const reply = new Promise<Reply>((resolve, reject) => {
        d.waiting = { resolve, reject };
      });
      timer = setTimeout(
        () => this.kill(d, new AudioDecodeError(`decoding took longer than ${Math.round(this.o.timeoutMs / 1000)} s`)),
        this.o.timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      for (const part of encodeFrame({ ...header, id: this.nextId++, bodyBytes: bytes.byteLength }, bytes)) d.run.io.write(part);
      const r = await reply;
      const rssMb = Number(r.header.rss ?? 0) / 1048576;
      if (rssMb > (this.o.recycleMb ?? this.o.memoryMb / 4)) this.kill(d, null);
      return r;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      d.waiting = null;
      this.release(d);
    }
  }

  private async acquire(signal?: AbortSignal): Promise<Decoder> {
    if (this.closed) throw new AudioDecodeError('the decoders are closed');
    const idle = this.idleDecoders.pop();
    if (idle) {
      if (idle.idle) clearTimeout(idle.idle);
      idle.idle = null;
      return idle;
    }
    if (this.live < this.o.processes) return this.start();
    const tenant = currentTenant() ?? '';
    const mine = this.queue.get(tenant);
    if (this.queued >= this.o.maxQueue) throw new PoolOverloadedError(1, { decodes_waiting: this.queued });
    const accountQueue = this.o.accountQueue ?? Math.max(1, Math.floor(this.o.maxQueue / 2));
    if (tenant !== '' && (mine?.length ?? 0) >= accountQueue)
      throw new PoolOverloadedError(2, { decodes_waiting_for_account: mine!.length, limit: accountQueue });
    return new Promise<Decoder>((resolve, reject) => {
      const entry: Waiter = {
        resolve: (dec: Decoder) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(dec);
        },
        reject,
      };
      const onAbort = () => {
        const list = this.queue.get(tenant);
        const i = list ? list.indexOf(entry) : -1;
        if (i >= 0) {
          list!.splice(i, 1);
          this.queued--;
          if (list!.length === 0) this.queue.delete(tenant);
        }
        reject(signal!.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (mine) mine.push(entry);
      else this.queue.set(tenant, [entry]);
      this.queued++;
    });
  }

  /** The next waiting upload: the first of the account whose turn it is, that account to the back of the line. */
  private nextWaiting(): Waiter | undefined {
    for (const [tenant, list] of this.queue) {
      const next = list.shift()!;
      this.queue.delete(tenant);
      if (list.length > 0) this.queue.set(tenant, list);
      this.queued--;
      return next;
    }
    return undefined;
  }

  /** Hands the decoder to the next waiting request, or parks it (a dead one makes room for a new one). */
  private release(d: Decoder): void {
    if (d.dead) {
      const next = this.nextWaiting();
      if (next) this.start().then(next.resolve, next.reject);
      return;
    }
    const next = this.nextWaiting();
    if (next) return next.resolve(d);
    d.idle = setTimeout(() => this.kill(d, null), this.o.idleMs ?? 20_000);
    d.idle.unref();
    this.idleDecoders.push(d);
  }

  private async start(): Promise<Decoder> {
    this.live++;
    const abort = new AbortController();
    const args = [
      ...(childEntry.tsx ? ['--import', import.meta.resolve('tsx')] : []),
      `--max-old-space-size=${this.o.heapMb}`,
      childEntry.file.pathname,
      String(this.o.memoryMb),
    ];
    let run: PipedRun;
    try {
      run = await this.spawner.pipe(process.execPath, args, abort.signal);
    } catch (err) {
      this.live--;
      throw new AudioDecodeError(`no decoder process could be started (${(err as Error).message})`);
    }
    const d: Decoder = { run, abort, reader: new FrameReader(2 ** 31 - 1), waiting: null, idle: null, dead: false };
    run.io.on('data', (chunk: Buffer) => {
      let frames: Reply[];
      try {
        frames = d.reader.push(chunk);
      } catch {
        return this.kill(d, new AudioDecodeError('the decoder answered garbage'));
      }
      for (const f of frames) d.waiting?.resolve(f);
    });
    run.io.on('error', () => this.kill(d, new AudioDecodeError('the decoder failed')));
    run.io.on('close', () => this.kill(d, new AudioDecodeError('the decoder stopped on this file (it ran out of memory or crashed)')));
    void run.exit.then(
      () => this.kill(d, new AudioDecodeError('the decoder stopped on this file (it ran out of memory or crashed)')),
      () => this.kill(d, new AudioDecodeError('the decoder failed')),
    );
    return d;
  }

  /** Ends a decoder; `err` fails the request it was decoding (null: it had none). Idempotent. */
  private kill(d: Decoder, err: Error | null): void {
    const waiting = d.waiting;
    d.waiting = null;
    if (waiting) waiting.reject(err ?? new AudioDecodeError('the decoder was stopped'));
    if (d.dead) return;
    d.dead = true;
    this.live--;
    if (d.idle) clearTimeout(d.idle);
    const i = this.idleDecoders.indexOf(d);
    if (i >= 0) this.idleDecoders.splice(i, 1);
    d.run.io.destroy();
    d.abort.abort();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (let q = this.nextWaiting(); q; q = this.nextWaiting()) q.reject(new AudioDecodeError('the decoders are closed'));
    for (const d of [...this.idleDecoders]) this.kill(d, null);
  }
}
