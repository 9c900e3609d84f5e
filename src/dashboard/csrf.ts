// Cross-site request forgery checks for requests authenticated by the session cookie.
// SameSite=Strict already keeps browsers from sending the cookie on requests other sites start;
// these checks are the second lock: a state-changing request (and every playground API call,
// since those spend credits) must echo the session's CSRF token in X-CSRF-Token, which another
// origin cannot read, and a browser's Origin header, when present, must name this host.

import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { DashboardSession } from '../storage/store.js';

export const CSRF_HEADER = 'x-csrf-token';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isStateChanging(method: string): boolean {
  return STATE_CHANGING.has(method.toUpperCase());
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * An Origin header, when present, must be this service's own host (host and port; the scheme is
 * not compared, since a TLS-terminating proxy may not say which one the browser used).
 * request.host honours X-Forwarded-Host only when the config trusts proxies.
 */
export function checkOrigin(request: FastifyRequest): void {
  const origin = header(request, 'origin');
  if (origin === undefined) return;
  let same = false;
  try {
    const from = new URL(origin);
    // Read our Host with the origin's scheme, so a default port (:80, :443) compares equal either way.
    same = from.host !== '' && from.host === new URL(`${from.protocol}//${request.host}`).host;
  } catch {
    same = false; // "null" (sandboxed frames, some redirects) or garbage: not our origin.
  }
  if (!same) {
    throw new ApiError('CSRF_FAILED', { message: 'The request comes from another origin.', details: { origin } });
  }
}

/** X-CSRF-Token must equal the session's token (compared in constant time), and the origin must be ours. */
export function checkCsrf(request: FastifyRequest, session: DashboardSession): void {
  checkOrigin(request);
  const sent = header(request, CSRF_HEADER);
  const a = Buffer.from(sent ?? '');
  const b = Buffer.from(session.csrfToken);
  if (sent === undefined || a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new ApiError('CSRF_FAILED', {
      message: sent === undefined ? 'The X-CSRF-Token header is missing.' : 'The X-CSRF-Token header does not match the session.',
    });
  }
}
