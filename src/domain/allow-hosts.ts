// PARLA_FETCH_ALLOW_HOSTS entries (docs/operations.md; decision #39): what the safe fetcher may
// reach whatever its addresses. An entry names a host and a port, because a host is many services
// (Parla's own port, Redis, PostgreSQL on localhost): `localhost:8099`, `10.0.0.5:9000`,
// `[::1]:8099`; `host:*` opens every port of the host. A bare `host` (what entries were before)
// now means the URL's default port only (80 for http, 443 for https), no longer every port.

export interface AllowHostEntry {
  /** The host as WHATWG URL writes it: lower case, IPv6 in brackets, IPv4 in dotted decimal. */
  host: string;
  /** A port, '*' (every port), or 'default' (80 for http, 443 for https). */
  port: number | '*' | 'default';
}

/** The host part as a URL's hostname would be, or null when it is no host. */
function canonicalHost(host: string): string | null {
  if (host === '' || /[\s/?#@]/.test(host)) return null;
  try {
    const h = new URL(`http://${host}/`).hostname;
    return h.endsWith('.') ? h.slice(0, -1) : h;
  } catch {
    return null;
  }
}

/** One entry, or a message saying what is wrong with it. */
export function parseAllowHostEntry(raw: string): AllowHostEntry | string {
  const entry = raw.trim().toLowerCase();
  let host: string;
  let port: string | undefined;
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close < 0) return `"${raw}": an IPv6 address needs its closing bracket`;
    host = entry.slice(0, close + 1);
    const rest = entry.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return `"${raw}": write [address]:port`;
    port = rest === '' ? undefined : rest.slice(1);
  } else if (entry.indexOf(':') !== entry.lastIndexOf(':')) {
    // A bare IPv6 address (several colons): no port can follow it without brackets.
    host = `[${entry}]`;
  } else {
    const colon = entry.indexOf(':');
    host = colon < 0 ? entry : entry.slice(0, colon);
    port = colon < 0 ? undefined : entry.slice(colon + 1);
  }
  const canonical = canonicalHost(host);
  if (canonical === null) return `"${raw}" is not a host name or address`;
  if (port === undefined) return { host: canonical, port: 'default' };
  if (port === '*') return { host: canonical, port: '*' };
  const n = /^[0-9]{1,5}$/.test(port) ? Number(port) : NaN;
  if (!(n >= 1 && n <= 65535)) return `"${raw}": the port must be 1-65535 or *`;
  return { host: canonical, port: n };
}

/** Whether `url` (its hostname and effective port) is one an entry allows. */
export function allowHostMatches(entries: readonly AllowHostEntry[], url: URL): boolean {
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  const defaultPort = url.protocol === 'https:' ? 443 : 80;
  const port = url.port === '' ? defaultPort : Number(url.port);
  return entries.some((e) => e.host === host && (e.port === '*' || (e.port === 'default' ? port === defaultPort : e.port === port)));
}
