// A user-given URL's body into a file, through the safe fetcher (safe-fetch.ts), capped in bytes
// and, beside the fetcher's timers, by a minimum rate.

import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DownloadTooSlowError, FileTooLargeError, UrlFetchFailedError } from './fetch-errors.js';
import type { FetchPolicy } from './fetch-policy.js';
import { DOWNLOAD_LIMITS, openDownload, type Limits } from './safe-fetch.js';

export interface Download {
  path: string;
  bytes: number;
  contentType: string | null;
  /** After redirects. */
  finalUrl: string;
}

/**
 * GETs the URL into a new file in `dir` (deleted again on any failure). Cut at maxBytes: an
 * announced Content-Length over it fails before a byte is read, a longer body when it passes.
 */
export async function safeDownload(
  rawUrl: string,
  opts: { policy: FetchPolicy; maxBytes: number; dir: string; limits?: Limits; signal?: AbortSignal },
): Promise<Download> {
  const limits = opts.limits ?? DOWNLOAD_LIMITS;
  const ex = await openDownload(rawUrl, { ...opts, limits });
  const file = path.join(opts.dir, `download-${randomBytes(12).toString('hex')}`);
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  let bytes = 0;
  let rateTimer: NodeJS.Timeout | null = null;
  try {
    await Promise.race([
      ex.fail,
      new Promise<void>((resolve, reject) => {
        out.on('error', reject);
        rateTimer = watchRate(limits, () => bytes, reject);
        ex.res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > opts.maxBytes) {
            reject(new FileTooLargeError(opts.maxBytes));
            return;
          }
          if (!out.write(chunk)) {
            ex.res.pause();
            out.once('drain', () => ex.res.resume());
          }
        });
        ex.res.on('end', () => {
          if (!ex.res.complete) reject(new UrlFetchFailedError('the connection closed before the body ended'));
          else out.end(() => resolve());
        });
        ex.res.on('aborted', () => reject(new UrlFetchFailedError('the connection closed before the body ended')));
      }),
    ]);
    ex.finish();
    return { path: file, bytes, contentType: ex.res.headers['content-type'] ?? null, finalUrl: ex.url.toString() };
  } catch (err) {
    ex.finish();
    out.destroy();
    await rm(file, { force: true });
    throw err;
  } finally {
    if (rateTimer) clearInterval(rateTimer);
  }
}

/**
 * Samples the bytes received every tenth of the window (at most every second) and rejects once
 * those of the last window average under the minimum: a sliding window, so a burst at the start
 * does not buy a long drip after it.
 */
function watchRate(limits: Limits, received: () => number, reject: (e: Error) => void): NodeJS.Timeout | null {
  const min = limits.minBytesPerSecond ?? 0;
  const windowMs = limits.rateWindowMs ?? 0;
  if (min <= 0 || windowMs <= 0) return null;
  const tick = Math.max(10, Math.min(1000, Math.floor(windowMs / 10)));
  const started = Date.now();
  const samples: Array<{ at: number; bytes: number }> = [{ at: started, bytes: 0 }];
  const timer = setInterval(() => {
    const now = Date.now();
    samples.push({ at: now, bytes: received() });
    while (samples.length > 1 && samples[1]!.at <= now - windowMs) samples.shift();
    const from = samples[0]!;
    if (now - started < windowMs || now - from.at < windowMs) return;
    const rate = ((received() - from.bytes) * 1000) / (now - from.at);
    if (rate < min) {
      clearInterval(timer);
      reject(
        new DownloadTooSlowError(
          `the source sent ${Math.round(rate)} bytes/s over the last ${Math.round(windowMs / 1000)} s, under the minimum of ${min} bytes/s`,
        ),
      );
    }
  }, tick);
  timer.unref();
  return timer;
}
