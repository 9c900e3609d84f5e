// Authentication of every API request by X-API-Key (decisions #22), before the body is read.
// Routes opt out with `config: { public: true }` (health, docs, dashboard pages).

import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../accounts/auth-context.js';
import type { KeyAuthenticator } from '../accounts/authenticate.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every authenticated route; absent on public ones. */
    auth: AuthContext;
  }
  interface FastifyContextConfig {
    /** No API key needed. */
    public?: boolean;
  }
}

/** Paths served by third-party plugins that cannot carry route config. */
const PUBLIC_PREFIXES = ['/docs', '/openapi.json', '/dashboard', '/health', '/metrics'];

export function isPublicRoute(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  // No matched route: the 404 handler answers, whatever the key.
  if (url === undefined) return true;
  if (request.routeOptions.config?.public === true) return true;
  return PUBLIC_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`));
}

export const authPlugin = fp(
  async (app, opts: { authenticator: KeyAuthenticator }) => {
    app.decorateRequest('auth', null as unknown as AuthContext);
    app.addHook('onRequest', async (request) => {
      if (isPublicRoute(request)) return;
      const header = request.headers['x-api-key'];
      const raw = Array.isArray(header) ? header[0] : header;
      request.auth = await opts.authenticator.authenticate(raw);
    });
  },
  { name: 'parla-auth', fastify: '5.x', dependencies: ['parla-request-id'] },
);
