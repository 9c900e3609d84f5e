// Outbound HTTP for URLs that users hand us (job audio URLs, webhook callbacks), safe against
// server-side request forgery.
//
// - Only http and https, no credentials in the URL, at most 5 redirects, each one checked again.
// - Every address is checked after DNS resolution, inside the connection's own `lookup`: the
//   address that passed the check is the address the socket connects to, so a second DNS answer
//   (rebinding) never gets a say. A host literal (an IP in the URL) is checked before connecting,
//   since Node skips `lookup` for literals.
// - Only unicast addresses pass (ipaddr.js ranges): loopback, private, link-local (where cloud
//   metadata lives, 169.254.169.254), CGNAT, multicast, unspecified, unique-local, reserved and the
//   IPv6 forms that embed an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo) are refused, unless
//   the operator allows private addresses or lists the host.
// - Bytes and time are capped: connect, idle (no byte for a while) and total.
// Written on node:http rather than fetch(): undici's fetch has no per-connection lookup hook
// without installing undici itself, and the pinning is the point.

import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import dns from 'node:dns';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../errors.js';

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface FetchPolicy {
  /** PARLA_FETCH_ALLOW_PRIVATE: every address may be reached. */
  allowPrivate: boolean;
  /** PARLA_FETCH_ALLOW_HOSTS: host names (or IP literals) reached whatever their addresses. */
  allowHosts: readonly string[];
  /** DNS; injectable for tests. Defaults to the system resolver (all addresses). */
  resolve?: Resolver;
}

export interface Limits {
  connectTimeoutMs: number;
  /** Longest silence while connected (no byte sent or received). */
  idleTimeoutMs: number;
  totalTimeoutMs: number;
}

export const DOWNLOAD_LIMITS: Limits = { connectTimeoutMs: 10_000, idleTimeoutMs: 30_000, totalTimeoutMs: 30 * 60_000 };
export const MAX_REDIRECTS = 5;
const MAX_URL_LENGTH = 4096;

/** The URL or an address it leads to is refused (edge: 400 URL_NOT_ALLOWED). */
export class UrlNotAllowedError extends Error {
  readonly code = 'URL_NOT_ALLOWED';
  constructor(message: string) {
    super(message);
    this.name = 'UrlNotAllowedError';
  }
}

/** The download did not succeed: network, TLS, timeout, non-2xx, too many redirects (URL_FETCH_FAILED). */
export class UrlFetchFailedError extends Error {
  readonly code = 'URL_FETCH_FAILED';
  constructor(message: string, readonly status: number | null = null, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UrlFetchFailedError';
  }
}

/** More bytes than the limit (FILE_TOO_LARGE). */
export class FileTooLargeError extends Error {
  readonly code = 'FILE_TOO_LARGE';
  constructor(readonly limit: number) {
    super(`The download is larger than ${limit} bytes.`);
    this.name = 'FileTooLargeError';
  }
}

export type SafeFetchError = UrlNotAllowedError | UrlFetchFailedError | FileTooLargeError;

/** The API error a job shows (or the edge answers) for a fetcher error; other errors pass through. */
export function fetchErrorToApi(err: unknown): unknown {
  if (err instanceof UrlNotAllowedError) return new ApiError('URL_NOT_ALLOWED', { message: `URL not allowed: ${err.message}`, details: { field: 'url' } });
  if (err instanceof UrlFetchFailedError) return new ApiError('URL_FETCH_FAILED', { message: `The audio could not be downloaded: ${err.message}`, details: { field: 'url', ...(err.status === null ? {} : { status: err.status }) } });
  if (err instanceof FileTooLargeError) return new ApiError('FILE_TOO_LARGE', { message: `The audio is larger than ${err.limit} bytes.`, details: { limit: err.limit } });
  return err;
}

/** True for the unicast (public) addresses; IPv4-mapped IPv6 is judged as the IPv4 it carries. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const addr = ipaddr.process(address);
  return addr.range() === 'unicast';
}

const defaultResolver: Resolver = async (host) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

function hostAllowed(policy: FetchPolicy, host: string): boolean {
  return policy.allowPrivate || policy.allowHosts.includes(host.toLowerCase());
}

/** The URL's host as a bare name or address (no IPv6 brackets, no trailing dot). */
function bareHost(url: URL): string {
  const h = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** Checks what can be checked without DNS: scheme, credentials, length, an IP literal host. */
export function checkUrl(raw: string, policy: FetchPolicy): URL {
  if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH) throw new UrlNotAllowedError(`the URL must be a string of at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlNotAllowedError('the URL does not parse');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UrlNotAllowedError(`only http and https URLs are fetched, not ${url.protocol.slice(0, -1)}`);
  if (url.username !== '' || url.password !== '') throw new UrlNotAllowedError('URLs with credentials are not fetched');
  const host = bareHost(url);
  if (host === '') throw new UrlNotAllowedError('the URL has no host');
  if (net.isIP(host) && !hostAllowed(policy, host) && !isPublicAddress(host)) throw new UrlNotAllowedError(`the address ${host} is not public`);
  return url;
}

/**
 * net.connect's `lookup`: resolves once, refuses if any answer is not public (a name that points
 * inside is not fetched even if it also points outside), and hands the checked address to the socket.
 */
function pinnedLookup(policy: FetchPolicy, host: string): net.LookupFunction {
  const resolve = policy.resolve ?? defaultResolver;
  return ((hostname: string, options: dns.LookupOptions, callback: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    resolve(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw new UrlFetchFailedError(`${hostname} has no address`);
        if (!hostAllowed(policy, host)) {
          const bad = addresses.find((a) => !isPublicAddress(a.address));
          if (bad) throw new UrlNotAllowedError(`${hostname} resolves to ${bad.address}, which is not public`);
        }
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const pick = wanted[0] ?? addresses[0]!;
        if (options.all) callback(null, [{ address: pick.address, family: pick.family }]);
        else callback(null, pick.address, pick.family);
      })
      .catch((err: unknown) => {
        const e = err instanceof UrlNotAllowedError || err instanceof UrlFetchFailedError ? err : new UrlFetchFailedError(`DNS lookup of ${hostname} failed: ${(err as Error).message}`);
        callback(e, '', 4);
      });
  }) as net.LookupFunction;
}

export interface SafeRequestOptions {
  policy: FetchPolicy;
  limits: Limits;
  method?: 'GET' | 'POST';
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
      lookup: net.isIP(host) ? undefined : pinnedLookup(o.policy, host),
      headers: { 'user-agent': 'Parla/0.1', 'accept-encoding': 'identity', ...o.headers },
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const total = Math.max(1, deadline - Date.now());
    timers.push(setTimeout(() => stop(new UrlFetchFailedError(`no complete answer within ${o.limits.totalTimeoutMs} ms`)), total));
    const connectTimer = setTimeout(() => stop(new UrlFetchFailedError(`no connection within ${o.limits.connectTimeoutMs} ms`)), o.limits.connectTimeoutMs);
    timers.push(connectTimer);
    req.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.setTimeout(o.limits.idleTimeoutMs, () => stop(new UrlFetchFailedError(`no data for ${o.limits.idleTimeoutMs} ms`)));
    req.on('error', (err) => {
      const e = err instanceof UrlNotAllowedError || err instanceof UrlFetchFailedError ? err : new UrlFetchFailedError(`${(err as Error).message}`, null, { cause: err });
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
export async function openDownload(rawUrl: string, opts: { policy: FetchPolicy; maxBytes: number; limits: Limits; signal?: AbortSignal }): Promise<Exchange> {
  const ex = await safeRequest(rawUrl, { policy: opts.policy, limits: opts.limits, followRedirects: true, ...(opts.signal ? { signal: opts.signal } : {}) });
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
export async function safeDownload(rawUrl: string, opts: { policy: FetchPolicy; maxBytes: number; dir: string; limits?: Limits; signal?: AbortSignal }): Promise<Download> {
  const ex = await openDownload(rawUrl, { ...opts, limits: opts.limits ?? DOWNLOAD_LIMITS });
  const file = path.join(opts.dir, `download-${randomBytes(12).toString('hex')}`);
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  let bytes = 0;
  try {
    await Promise.race([
      ex.fail,
      new Promise<void>((resolve, reject) => {
        out.on('error', reject);
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
  }
}
