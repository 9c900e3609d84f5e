// Authentication of every API request by X-API-Key (decisions #22), before the body is read;
// without that header, the dashboard playground's session cookie (src/dashboard/playground-auth.ts).
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
  // Fastify builds (and freezes) a new routeOptions object on every read: read it once.
  const { url, config } = request.routeOptions;
  // No matched route: the 404 handler answers, whatever the key.
  if (url === undefined) return true;
  if (config?.public === true) return true;
  return PUBLIC_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`));
}

export interface AuthPluginOptions {
  authenticator: KeyAuthenticator;
  /**
   * For requests without X-API-Key: the dashboard session's account (src/dashboard/playground-auth.ts),
   * or null when there is no session cookie, which leaves the missing-key answer unchanged.
   */
  sessionAuth?: (request: FastifyRequest) => Promise<AuthContext | null>;
}

export const authPlugin = fp(
  async (app, opts: AuthPluginOptions) => {
    app.decorateRequest('auth', null as unknown as AuthContext);
    app.addHook('onRequest', async (request) => {
      if (isPublicRoute(request)) return;
      const header = request.headers['x-api-key'];
      const raw = Array.isArray(header) ? header[0] : header;
      const bySession = raw === undefined && opts.sessionAuth ? await opts.sessionAuth(request) : null;
      request.auth = bySession ?? (await opts.authenticator.authenticate(raw));
    });
  },
  { name: 'parla-auth', fastify: '5.x', dependencies: ['parla-request-id'] },
);
