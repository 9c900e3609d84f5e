// Which URLs the safe fetcher (safe-fetch.ts) may reach: the checks made before connecting
// (scheme, credentials, length, an IP literal) and the pinned DNS lookup that checks every address
// a name resolves to and hands the checked one to the socket (no rebinding).

import dns from 'node:dns';
import net from 'node:net';
import { allowHostMatches, parseAllowHostEntry, type AllowHostEntry } from '../domain/allow-hosts.js';
import { addressProblem } from './address-policy.js';
import { UrlFetchFailedError, UrlNotAllowedError } from './fetch-errors.js';

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface FetchPolicy {
  /** PARLA_FETCH_ALLOW_PRIVATE: every address may be reached. */
  allowPrivate: boolean;
  /** PARLA_FETCH_ALLOW_HOSTS: host:port entries (src/domain/allow-hosts.ts) reached whatever their addresses. */
  allowHosts: readonly string[];
  /** DNS; injectable for tests. Defaults to the system resolver (all addresses). */
  resolve?: Resolver;
}

const MAX_URL_LENGTH = 4096;

const defaultResolver: Resolver = async (host) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Whether the operator lets `url` be reached whatever its addresses: every address, or a host:port entry. */
export function urlAllowed(policy: FetchPolicy, url: URL): boolean {
  if (policy.allowPrivate) return true;
  const entries: AllowHostEntry[] = [];
  for (const raw of policy.allowHosts) {
    const e = parseAllowHostEntry(raw);
    if (typeof e !== 'string') entries.push(e);
  }
  return allowHostMatches(entries, url);
}

/** The URL's host as a bare name or address (no IPv6 brackets, no trailing dot). */
export function bareHost(url: URL): string {
  const h = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** Checks what can be checked without DNS: scheme, credentials, length, an IP literal host. */
export function checkUrl(raw: string, policy: FetchPolicy): URL {
  if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH)
    throw new UrlNotAllowedError(`the URL must be a string of at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlNotAllowedError('the URL does not parse');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlNotAllowedError(`only http and https URLs are fetched, not ${url.protocol.slice(0, -1)}`);
  if (url.username !== '' || url.password !== '') throw new UrlNotAllowedError('URLs with credentials are not fetched');
  const host = bareHost(url);
  if (host === '') throw new UrlNotAllowedError('the URL has no host');
  if (net.isIP(host) && !urlAllowed(policy, url)) {
    const problem = addressProblem(host);
    if (problem !== null) throw new UrlNotAllowedError(problem);
  }
  return url;
}

/**
 * checkUrl, and the addresses the host resolves to now: for a URL a request names to be called
 * later (Deepgram's callback), so one that leads inside is refused while its sender still waits.
 * A name that does not resolve passes: it is resolved (and checked) again when it is called.
 */
export async function checkUrlNow(raw: string, policy: FetchPolicy): Promise<URL> {
  const url = checkUrl(raw, policy);
  const host = bareHost(url);
  if (net.isIP(host) || urlAllowed(policy, url)) return url;
  const addresses = await (policy.resolve ?? defaultResolver)(host).catch(() => []);
  for (const a of addresses) {
    const problem = addressProblem(a.address);
    if (problem !== null) throw new UrlNotAllowedError(`${host} resolves to ${a.address}: ${problem}`);
  }
  return url;
}

/**
 * net.connect's `lookup`: resolves once, refuses if any answer is not public (a name that points
 * inside is not fetched even if it also points outside), and hands the checked address to the socket.
 */
export function pinnedLookup(policy: FetchPolicy, allowed: boolean): net.LookupFunction {
  const resolve = policy.resolve ?? defaultResolver;
  return ((
    hostname: string,
    options: dns.LookupOptions,
    callback: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw new UrlFetchFailedError(`${hostname} has no address`);
        if (!allowed) {
          for (const a of addresses) {
            const problem = addressProblem(a.address);
            if (problem !== null) throw new UrlNotAllowedError(`${hostname} resolves to ${a.address}: ${problem}`);
          }
        }
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const pick = wanted[0] ?? addresses[0]!;
        if (options.all) callback(null, [{ address: pick.address, family: pick.family }]);
        else callback(null, pick.address, pick.family);
      })
      .catch((err: unknown) => {
        const e =
          err instanceof UrlNotAllowedError || err instanceof UrlFetchFailedError
            ? err
            : new UrlFetchFailedError(`DNS lookup of ${hostname} failed: ${(err as Error).message}`);
        callback(e, '', 4);
      });
  }) as net.LookupFunction;
}
