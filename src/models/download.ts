// Downloads an archive into a `.part` file and resumes an interrupted download with an HTTP Range
// request (a server that ignores Range sends the whole file again, which is then written from the
// start). Progress goes to stderr: a redrawn bar on a terminal, two plain lines otherwise.

import { createWriteStream, existsSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

export class DownloadError extends Error {}

export interface DownloadResult {
  file: string;
  bytes: number;
  /** Bytes that were already in the .part file and not fetched again. */
  resumedFrom: number;
}

/** A connection that delivers nothing for this long is given up (the .part file stays). */
const IDLE_MS = 60_000;

export async function downloadFile(
  url: string,
  dest: string,
  progress: Progress = stderrProgress(url),
  idleMs = IDLE_MS,
): Promise<DownloadResult> {
  const part = `${dest}.part`;
  const have = existsSync(part) ? statSync(part).size : 0;
  const abort = new AbortController();
  let idle = setTimeout(() => abort.abort(new Error(`nothing received for ${idleMs / 1000} s`)), idleMs);
  const alive = () => {
    clearTimeout(idle);
    idle = setTimeout(() => abort.abort(new Error(`nothing received for ${idleMs / 1000} s`)), idleMs);
  };
  try {
    return await fetchInto(url, dest, part, have, progress, abort.signal, alive);
  } finally {
    clearTimeout(idle);
  }
}

async function fetchInto(
  url: string,
  dest: string,
  part: string,
  have: number,
  progress: Progress,
  signal: AbortSignal,
  alive: () => void,
): Promise<DownloadResult> {
  let res: Response;
  try {
    res = await fetch(url, { headers: have > 0 ? { range: `bytes=${have}-` } : {}, redirect: 'follow', signal });
  } catch (err) {
    const why = signal.aborted
      ? (signal.reason as Error).message
      : ((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message);
    throw new DownloadError(`cannot reach ${url}: ${why}`);
  }
  let start = 0;
  let total: number | null = null;
  if (res.status === 206) {
    const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '');
    if (!range || Number(range[1]) !== have)
      throw new DownloadError(
        `${url}: the server answered a resume request with an unexpected range (${res.headers.get('content-range')})`,
      );
    start = have;
    total = range[2] === '*' ? null : Number(range[2]);
  } else if (res.status === 416 && have > 0) {
    // The .part file already holds the whole file (interrupted after the last byte).
    const range = /^bytes \*\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
    await res.body?.cancel();
    if (range && Number(range[1]) === have) {
      renameSync(part, dest);
      return { file: dest, bytes: have, resumedFrom: have };
    }
    unlinkSync(part);
    throw new DownloadError(`${url}: the partial download does not match the file on the server; it was deleted, run the command again`);
  } else if (res.status === 200) {
    const len = res.headers.get('content-length');
    total = len && /^\d+$/.test(len) ? Number(len) : null;
  } else {
    await res.body?.cancel();
    throw new DownloadError(`${url}: HTTP ${res.status} ${res.statusText}`);
  }
  if (!res.body) throw new DownloadError(`${url}: empty response`);

  let received = start;
  progress.start(start, total);
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      alive();
      received += chunk.length;
      progress.update(received);
      done(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(res.body as WebReadableStream<Uint8Array>),
      counter,
      createWriteStream(part, { flags: start > 0 ? 'a' : 'w' }),
    );
  } catch (err) {
    progress.end(false);
    const why = signal.aborted ? (signal.reason as Error).message : (err as Error).message;
    throw new DownloadError(
      `download interrupted after ${received} of ${total ?? '?'} bytes (${why}); run the same command again to resume`,
    );
  }
  if (total !== null && received !== total) {
    progress.end(false);
    throw new DownloadError(`download interrupted after ${received} of ${total} bytes; run the same command again to resume`);
  }
  progress.end(true);
  renameSync(part, dest);
  return { file: dest, bytes: received, resumedFrom: start };
}

export interface Progress {
  start(from: number, total: number | null): void;
  update(bytes: number): void;
  end(ok: boolean): void;
}

const mb = (n: number) => (n / 1048576).toFixed(1);

/** A bar redrawn at most ten times a second on a terminal; a start and an end line otherwise. */
export function stderrProgress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  const tty = stream.isTTY === true;
  let total: number | null = null;
  let from = 0;
  let last = 0;
  let current = 0;
  const t0 = Date.now();
  const draw = () => {
    const secs = Math.max(0.001, (Date.now() - t0) / 1000);
    const rate = `${mb((current - from) / secs)} MB/s`;
    if (total) {
      const frac = Math.min(1, current / total);
      const width = 30;
      const filled = Math.round(frac * width);
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}% ${mb(current)}/${mb(total)} MB ${rate}   `,
      );
    } else stream.write(`\r${mb(current)} MB ${rate}   `);
  };
  return {
    start(start, size) {
      from = start;
      current = start;
      total = size;
      stream.write(`downloading ${label}${start > 0 ? ` (resuming at ${mb(start)} MB)` : ''}${size ? `, ${mb(size)} MB` : ''}\n`);
      if (tty) draw();
    },
    update(bytes) {
      current = bytes;
      const now = Date.now();
      if (tty && now - last >= 100) {
        last = now;
        draw();
      }
    },
    end(ok) {
      if (tty) {
        draw();
        stream.write('\n');
      }
      if (ok) stream.write(`downloaded ${mb(current)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    },
  };
}
