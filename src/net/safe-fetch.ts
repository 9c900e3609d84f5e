// Outbound HTTP for URLs that users hand us (job audio URLs, webhook callbacks), safe against
// server-side request forgery.
//
// - Only http and https, no credentials in the URL, at most 5 redirects, each one checked again.
// - Every address is checked after DNS resolution, inside the connection's own `lookup`: the
//   address that passed the check is the address the socket connects to, so a second DNS answer
//   (rebinding) never gets a say. A host literal (an IP in the URL) is checked before connecting,
//   since Node skips `lookup` for literals.
// - Only unicast addresses pass (ipaddr.js ranges): loopback, private, link-local (where cloud
//   metadata lives, 169.254.169.254), CGNAT, multicast, unspecified, unique-local, reserved. An
//   IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4 address it carries; every other
//   IPv6 form that embeds an IPv4 address (IPv4-compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64
//   64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32, ISATAP ::5efe:a.b.c.d) is
//   refused whatever it carries (issue 30, item 6: [::127.0.0.1] reached loopback): a public IPv4
//   host is written as IPv4. The operator may allow private addresses, or list host:port entries
//   (PARLA_FETCH_ALLOW_HOSTS, src/domain/allow-hosts.ts): an entry opens one port, not the host.
// - Bytes and time are capped: connect, idle (no byte for a while) and total; a download also by
//   a minimum rate (a source that sends a byte every few seconds is never idle, and would hold a
//   job runner for the whole total time at no cost to its sender: issue 30).
// Written on node:http rather than fetch(): undici's fetch has no per-connection lookup hook
// without installing undici itself, and the pinning is the point.
//
// Here the request (timers, redirects); beside it the checks and the pinned lookup
// (fetch-policy.ts), the errors (fetch-errors.ts) and a download into a file (safe-download.ts).

import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { DownloadTooSlowError, FileTooLargeError, UrlFetchFailedError, UrlNotAllowedError } from './fetch-errors.js';
import { bareHost, checkUrl, pinnedLookup, urlAllowed, type FetchPolicy } from './fetch-policy.js';

// The fetcher's parts, for the callers that import them from here.
export { addressProblem, embeddedIPv4, isPublicAddress } from './address-policy.js';
export { DownloadTooSlowError, FileTooLargeError, UrlFetchFailedError, UrlNotAllowedError, type SafeFetchError } from './fetch-errors.js';
export { checkUrl, checkUrlNow, type FetchPolicy, type ResolvedAddress, type Resolver } from './fetch-policy.js';

export interface Limits {
  connectTimeoutMs: number;
  /** Longest silence while connected (no byte sent or received). */
  idleTimeoutMs: number;
  totalTimeoutMs: number;
  /**
   * A download's body must bring at least this many bytes per second, averaged over the last
   * `rateWindowMs` (checked once that long has passed since the answer began: the grace period).
   * 0 or absent: no minimum.
   */
  minBytesPerSecond?: number;
  rateWindowMs?: number;
}

/** The defaults (docs/jobs.md; PARLA_FETCH_* in docs/operations.md set them for job downloads). */
export const DOWNLOAD_LIMITS: Limits = {
  connectTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  totalTimeoutMs: 30 * 60_000,
  minBytesPerSecond: 16 * 1024,
  rateWindowMs: 20_000,
};
export const MAX_REDIRECTS = 5;

export interface SafeRequestOptions {
  policy: FetchPolicy;
  limits: Limits;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Follow redirects (GET downloads); webhooks do not. */
  followRedirects?: boolean;
  signal?: AbortSignal;
}

interface Exchange {
  res: http.IncomingMessage;
  url: URL;
  /** Ends the exchange (sockets, timers). */
  finish(): void;
  /** Resolves when the response body ended; rejects on a timeout or socket error. */
  fail: Promise<never>;
}

/** One request with pinned DNS and the three timers; redirects are left to the caller. */
function exchange(url: URL, o: SafeRequestOptions, deadline: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const host = bareHost(url);
    const agent = new mod.Agent({ keepAlive: false });
    let failWith: (e: Error) => void = () => undefined;
    const fail = new Promise<never>((_, rej) => (failWith = rej));
    fail.catch(() => undefined);
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const stop = (err: Error) => {
      for (const t of timers) clearTimeout(t);
      req.destroy(err);
      agent.destroy();
      if (!settled) {
        settled = true;
        reject(err);
      } else failWith(err);
    };
    const req = mod.request(url, {
      method: o.method ?? 'GET',
      agent,
      lookup: net.isIP(host) ? undefined : pinnedLookup(o.policy, urlAllowed(o.policy, url)),
      headers: { 'user-agent': 'Parla/0.1', 'accept-encoding': 'identity', ...o.headers },
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const total = Math.max(1, deadline - Date.now());
    timers.push(setTimeout(() => stop(new DownloadTooSlowError(`no complete answer within ${o.limits.totalTimeoutMs} ms`)), total));
    const connectTimer = setTimeout(
      () => stop(new UrlFetchFailedError(`no connection within ${o.limits.connectTimeoutMs} ms`)),
      o.limits.connectTimeoutMs,
    );
    timers.push(connectTimer);
    req.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.setTimeout(o.limits.idleTimeoutMs, () => stop(new UrlFetchFailedError(`no data for ${o.limits.idleTimeoutMs} ms`)));
    req.on('error', (err) => {
      const e =
        err instanceof UrlNotAllowedError || err instanceof UrlFetchFailedError
          ? err
          : new UrlFetchFailedError(`${(err as Error).message}`, null, { cause: err });
      stop(e);
    });
    req.on('response', (res) => {
      settled = true;
      res.on('error', (err) => stop(new UrlFetchFailedError(err.message, null, { cause: err })));
      resolve({
        res,
        url,
        fail,
        finish: () => {
          for (const t of timers) clearTimeout(t);
          res.destroy();
          agent.destroy();
        },
      });
    });
    req.end(o.body);
  });
}

/** Sends a request through the safe path, following (and re-checking) redirects when asked. */
export async function safeRequest(rawUrl: string, o: SafeRequestOptions): Promise<Exchange> {
  const deadline = Date.now() + o.limits.totalTimeoutMs;
  let url = checkUrl(rawUrl, o.policy);
  for (let hop = 0; ; hop++) {
    const ex = await exchange(url, o, deadline);
    const status = ex.res.statusCode ?? 0;
    const location = ex.res.headers.location;
    if (!o.followRedirects || ![301, 302, 303, 307, 308].includes(status) || !location) return ex;
    ex.finish();
    if (hop >= MAX_REDIRECTS) throw new UrlFetchFailedError(`more than ${MAX_REDIRECTS} redirects`, status);
    let next: string;
    try {
      next = new URL(location, url).toString();
    } catch {
      throw new UrlFetchFailedError('a redirect with a malformed Location', status);
    }
    url = checkUrl(next, o.policy);
  }
}

/**
 * The GET of a download, past the checks every download makes before reading the body: a 2xx
 * answer, and no announced Content-Length over maxBytes (refused before a byte is read).
 */
export async function openDownload(
  rawUrl: string,
  opts: { policy: FetchPolicy; maxBytes: number; limits: Limits; signal?: AbortSignal },
): Promise<Exchange> {
  const ex = await safeRequest(rawUrl, {
    policy: opts.policy,
    limits: opts.limits,
    followRedirects: true,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const status = ex.res.statusCode ?? 0;
  if (status < 200 || status > 299) {
    ex.finish();
    throw new UrlFetchFailedError(`the server answered HTTP ${status}`, status);
  }
  const announced = Number(ex.res.headers['content-length']);
  if (Number.isFinite(announced) && announced > opts.maxBytes) {
    ex.finish();
    throw new FileTooLargeError(opts.maxBytes);
  }
  return ex;
}
