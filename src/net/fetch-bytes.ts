// A user-given URL's body into memory, through the safe fetcher (safe-fetch.ts: public addresses
// only unless the operator allows them, pinned DNS, redirects re-checked), for requests answered
// while the client waits (Deepgram's {"url"} body). The caps are the upload's: at most `maxBytes`
// (an announced larger Content-Length fails before a byte is read) and a total time a synchronous
// request can wait, far below the job queue's 30 minutes.

import { FileTooLargeError, openDownload, UrlFetchFailedError, type FetchPolicy, type Limits } from './safe-fetch.js';

/** Connect, idle and total timeouts for a download the client waits for. */
export const SYNC_DOWNLOAD_LIMITS: Limits = { connectTimeoutMs: 10_000, idleTimeoutMs: 20_000, totalTimeoutMs: 120_000 };

export async function fetchBytes(
  rawUrl: string,
  opts: { policy: FetchPolicy; maxBytes: number; limits?: Limits; signal?: AbortSignal },
): Promise<Buffer> {
  const ex = await openDownload(rawUrl, { ...opts, limits: opts.limits ?? SYNC_DOWNLOAD_LIMITS });
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    await Promise.race([
      ex.fail,
      new Promise<void>((resolve, reject) => {
        ex.res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > opts.maxBytes) reject(new FileTooLargeError(opts.maxBytes));
          else chunks.push(chunk);
        });
        ex.res.on('end', () =>
          ex.res.complete ? resolve() : reject(new UrlFetchFailedError('the connection closed before the body ended')),
        );
        ex.res.on('aborted', () => reject(new UrlFetchFailedError('the connection closed before the body ended')));
      }),
    ]);
    return Buffer.concat(chunks, bytes);
  } finally {
    ex.finish();
  }
}
