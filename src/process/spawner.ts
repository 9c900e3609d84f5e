// Starts every program of the service (Flite; the ffmpeg encoders, src/audio/ffmpeg-encoder.ts; the
// live Opus decoder, src/stt/live/opus-decoder.ts; the ffmpeg decode fallback, src/audio/decode.ts;
// the pronouncer, src/engines/pocketsphinx/pronounce.ts; the ffmpeg probe) through a small helper
// process instead of from the service's own.
// spawn() forks the calling process, and fork() copies its page tables while the caller waits: in
// the service (engines, models and audio: hundreds of MB resident) that held the event loop for
// 60-150 ms per Flite call (a CPU profile of the hostile suite: ChildProcess.spawn), so every
// Flite synthesis stalled every other request, and a burst of them stalled /health for seconds.
// Forking from a worker thread instead still took the process's memory-map lock and delayed the
// loop ~50 ms. The helper (spawner-child.ts) is a bare Node process: forking it costs a few ms,
// on its own CPU time. It is started on first use, restarted if it dies, and runs nothing but
// what the service sends it.

import { fork, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { helperEntry } from './entry.js';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

type Answer = { id: number; error: string } | { id: number; socket: string } | ({ id: number } & ExitStatus);

interface Pending {
  /** The helper the run was sent to. */
  child: ChildProcess;
  resolve(status: ExitStatus): void;
  reject(err: Error): void;
  /** A piped run: the helper listens on this socket for the program's stdin and stdout. */
  socket?(path: string): void;
}

/** A program whose stdin and stdout are one socket (ProcessSpawner.pipe). */
export interface PipedRun {
  /** Write to it for the program's stdin (end() is its end of input); read its stdout from it. */
  io: Socket;
  /** How it exited. */
  exit: Promise<ExitStatus>;
}

// From TypeScript sources (tests, tsx) the helper needs tsx's hooks; compiled, plain JavaScript.
const childEntry = helperEntry(import.meta.url, 'spawner-child');

/** What a collected run wrote to its stdout, and how it exited. */
export interface CollectedRun extends ExitStatus {
  stdout: Buffer;
}

export class ProcessSpawner {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  /** Runs `file` with `args` (stdin and stdout ignored) and resolves with how it exited. */
  run(file: string, args: string[], signal?: AbortSignal): Promise<ExitStatus> {
    return this.start(file, args, signal);
  }

  /**
   * Runs `file` with `args`, its stdin and stdout connected to the socket it resolves with (the
   * helper hands the program the connection itself: the bytes do not pass through the helper).
   * `signal` kills the program and destroys the socket.
   */
  pipe(file: string, args: string[], signal?: AbortSignal): Promise<PipedRun> {
    return new Promise((resolve, reject) => {
      let io: Socket | null = null;
      const exit = this.start(file, args, signal, (path) => {
        io = connect(path);
        io.once('connect', () => resolve({ io: io!, exit }));
        io.once('error', reject);
      });
      // The socket is the program's own stdout: closed before the kill lands, it would end the
      // program by a broken pipe (exit 141) instead. So it closes once the program is gone (or after
      // a second, should the helper not answer).
      signal?.addEventListener(
        'abort',
        () => {
          const close = () => io?.destroy();
          const late = setTimeout(close, 1000);
          exit.finally(() => clearTimeout(late)).then(close, close);
        },
        { once: true },
      );
      // Before the socket is up a failed start is this promise's failure; after, exit's.
      exit.catch((err: unknown) => {
        io?.destroy();
        reject(err);
      });
    });
  }

  /**
   * Runs `file` with `args` and no input (stdin at its end at once) and resolves with all it wrote
   * to stdout and how it exited. Output past `maxBytes` kills the program (a bound on memory, not a
   * result: the exit says it was killed).
   */
  async collect(file: string, args: string[], opts: { signal?: AbortSignal; maxBytes?: number } = {}): Promise<CollectedRun> {
    const stop = new AbortController();
    const onAbort = () => stop.abort(opts.signal?.reason);
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const { io, exit } = await this.pipe(file, args, stop.signal);
      io.end();
      const chunks: Buffer[] = [];
      let size = 0;
      // The output is whole only once the socket ended as well as the program exited.
      const read = (async () => {
        try {
          for await (const c of io as AsyncIterable<Buffer>) {
            // Past the bound the rest is read and dropped until the kill lands (see pipe).
            if (stop.signal.aborted) continue;
            size += c.length;
            if (opts.maxBytes !== undefined && size > opts.maxBytes) {
              stop.abort(new Error('output over its bound'));
              continue;
            }
            chunks.push(c);
          }
        } catch {
          // A killed program's socket is reset; its exit status says why.
        }
      })();
      const [status] = await Promise.all([exit, read]);
      io.destroy();
      return { ...status, stdout: Buffer.concat(chunks) };
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  private start(file: string, args: string[], signal: AbortSignal | undefined, onSocket?: (path: string) => void): Promise<ExitStatus> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the process spawner is closed'));
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      const child = this.helper();
      const id = this.nextId++;
      const kill = () => child.connected && child.send({ kill: id });
      signal?.addEventListener('abort', kill, { once: true });
      const done = () => {
        this.pending.delete(id);
        signal?.removeEventListener('abort', kill);
        this.updateRef();
      };
      this.pending.set(id, {
        child,
        resolve: (s) => {
          done();
          resolve(s);
        },
        reject: (e) => {
          done();
          reject(e);
        },
        ...(onSocket ? { socket: onSocket } : {}),
      });
      this.updateRef();
      child.send({ id, file, args, pipe: onSocket !== undefined }, (err) => {
        if (err) this.pending.get(id)?.reject(err);
      });
    });
  }

  /** Kills the helper (and so whatever it runs); later calls are refused. */
  close(): void {
    this.closed = true;
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  private helper(): ChildProcess {
    if (this.child?.connected) return this.child;
    // The parent's own flags (the test runner's, --cpu-prof, inspector ports) are not the helper's.
    const child = fork(childEntry.file, [], {
      execArgv: childEntry.tsx ? ['--import', 'tsx'] : [],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    });
    child.on('message', (m: Answer) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      if ('error' in m) p.reject(new Error(m.error));
      else if ('socket' in m) p.socket?.(m.socket);
      else p.resolve({ code: m.code, signal: m.signal, stderr: m.stderr });
    });
    const lost = (why: string) => {
      if (this.child === child) this.child = null;
      for (const p of [...this.pending.values()]) if (p.child === child) p.reject(new Error(`the process spawner ${why}`));
    };
    child.on('exit', (code, sig) => lost(`exited (${code ?? sig})`));
    child.on('error', (err) => lost(`failed: ${err.message}`));
    this.child = child;
    this.updateRef();
    return child;
  }

  /** The helper keeps the service's process alive only while something runs in it. */
  private updateRef(): void {
    const child = this.child;
    if (!child) return;
    const channel = child.channel as { ref?(): void; unref?(): void } | undefined;
    if (this.pending.size > 0) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
    }
  }
}

let shared: ProcessSpawner | null = null;

/**
 * The spawner of this thread: the node's one helper process on the main thread (services.ts hands
 * it to the engines and encoders; the live Opus decoder, the pronouncer and the ffmpeg probe take
 * it here), one per worker thread that starts a program (the decode fallback). It is never closed:
 * its helper keeps the process alive only while a program runs and exits with it.
 */
export function sharedSpawner(): ProcessSpawner {
  return (shared ??= new ProcessSpawner());
}
