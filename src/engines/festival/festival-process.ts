// One long-lived Festival process fed Scheme on stdin. Festival loads a voice in ~0.45 s (the HTS
// voice's models, its lexicon), which a process per call would pay every time; kept alive, a
// sentence costs only its synthesis. Calls run one at a time in order (Festival is single-threaded
// and one process holds ~340 MB: the engine runs a few at most), the waiting
// queue is bounded, and a call that hangs or a process that dies is replaced by a fresh process.
// This is a child process, not a TCP server (`festival --server` listens on a port every local
// user can reach and sends audio in its own framing): stdin/stdout need no port and no protocol.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { EngineError } from '../engine.js';

interface Job {
  script: string;
  resolve: () => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** Festival's Scheme string literal for any text (backslash and double quote escaped; no newlines). */
export function schemeString(text: string): string {
  let out = '"';
  for (const ch of text) {
    if (ch === '\\' || ch === '"') out += `\\${ch}`;
    else if (ch === '\n' || ch === '\r' || ch === '\t') out += ' ';
    else out += ch;
  }
  return `${out}"`;
}

export class FestivalProcess {
  private child: ChildProcessWithoutNullStreams | null = null;
  private stdout = '';
  private stderr = '';
  private seq = 0;
  private running: { job: Job; marker: string; timer: NodeJS.Timeout } | null = null;
  private readonly queue: Job[] = [];

  constructor(
    private readonly opts: {
      /** Scheme run once when the process starts (selects the voice). */
      setup: string;
      binary?: string;
      maxQueue?: number;
      timeoutMs?: number;
    },
  ) {}

  /** Calls waiting (not counting the one running). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Calls waiting or running. */
  get load(): number {
    return this.queue.length + (this.running ? 1 : 0);
  }

  /** Whether the process has been started (and not died since). */
  get started(): boolean {
    return this.child !== null;
  }

  /** Runs `script` (Scheme forms) and resolves once Festival has evaluated them. */
  run(script: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.queue.length >= (this.opts.maxQueue ?? 32))
      return Promise.reject(new EngineError('festival', 'too many syntheses waiting for Festival', true));
    return new Promise<void>((resolve, reject) => {
      const job: Job = { script, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => {
          const i = this.queue.indexOf(job);
          if (i >= 0) {
            this.queue.splice(i, 1);
            reject(signal.reason ?? new Error('aborted'));
          }
          // A running call is left to finish (it takes a fraction of a second; killing the
          // process would make the next call reload the voice); its caller ignores the result.
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.next();
    });
  }

  /** Ends the process (a pending call fails). */
  close(): void {
    const child = this.child;
    this.child = null;
    child?.kill('SIGKILL');
  }

  private start(): ChildProcessWithoutNullStreams {
    // stdout to a pipe is block-buffered in Festival; stdbuf makes it line-buffered, so each
    // call's end marker arrives when it is printed.
    const child = spawn('stdbuf', ['-oL', this.opts.binary ?? 'festival', '--pipe'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stdout = '';
    this.stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      this.stdout += d;
      this.check();
    });
    child.stderr.on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-2000);
    });
    child.stdin.on('error', () => {
      // A dead process: reported by 'exit' below.
    });
    child.on('error', (e) => this.fail(child, new EngineError('festival', e.message, true, { cause: e })));
    child.on('exit', (code, sig) =>
      this.fail(child, new EngineError('festival', `Festival exited (${code ?? sig}): ${this.stderr.trim().slice(-200)}`, true)),
    );
    child.stdin.write(`${this.opts.setup}\n`);
    // An idle Festival does not keep Node running; when Node exits, stdin closes and Festival ends
    // with it. A call in progress keeps the loop alive through its timeout timer.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as Socket).unref();
    return child;
  }

  private next(): void {
    if (this.running) return;
    const job = this.queue.shift();
    if (!job) return;
    if (!this.child) this.child = this.start();
    const marker = `parla-done-${++this.seq}`;
    const timer = setTimeout(() => {
      const child = this.child;
      this.child = null;
      child?.kill('SIGKILL');
      this.finish(new EngineError('festival', 'Festival took too long', true));
    }, this.opts.timeoutMs ?? 60_000);
    this.running = { job, marker, timer };
    this.stdout = '';
    this.child.stdin.write(`${job.script}\n(print "${marker}")\n`);
  }

  private check(): void {
    if (this.running && this.stdout.includes(`"${this.running.marker}"`)) {
      this.stdout = '';
      this.finish(null);
    } else if (this.stdout.length > 100_000) {
      this.stdout = this.stdout.slice(-1000);
    }
  }

  private fail(child: ChildProcessWithoutNullStreams, e: EngineError): void {
    if (this.child === child) this.child = null;
    if (this.running) this.finish(e);
  }

  private finish(error: EngineError | null): void {
    const r = this.running;
    if (!r) return;
    this.running = null;
    clearTimeout(r.timer);
    if (r.job.onAbort) r.job.signal?.removeEventListener('abort', r.job.onAbort);
    if (r.job.signal?.aborted) r.job.reject(r.job.signal.reason ?? new Error('aborted'));
    else if (error) r.job.reject(error);
    else r.job.resolve();
    this.next();
  }
}
