// The dashboard's session cookie: its name, and reading it from a request. Here rather than in
// src/dashboard/ because the HTTP error handler (below the edges) must know whether a request came
// from a signed-in dashboard page (src/http/error-handler.ts), and the floors of src/ let it import
// only downward (docs/architecture.md).

import type { FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'parla_session';

/**
 * The session cookie of a request, parsed when asked for: @fastify/cookie is registered without
 * its per-request parsing hook (hook: false), since only the dashboard and the playground read a
 * cookie and every API request would otherwise pay for parsing.
 */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  return request.server.parseCookie(header)[SESSION_COOKIE];
}
