// Authentication of every API request by X-API-Key (decisions #22; on the compatible dialects'
// /v1 routes also `Authorization: Bearer <key>` (OpenAI) or `Token <key>` (Deepgram)), before the
// body is read;
// without that header, the dashboard playground's session cookie (src/dashboard/playground-auth.ts).
// Routes opt out with `config: { public: true }` (health, docs, dashboard pages).

import fp from 'fastify-plugin';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { AuthContext } from '../accounts/auth-context.js';
import type { KeyAuthenticator } from '../accounts/authenticate.js';
import { appendRouteHook } from './route-hooks.js';

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

/** Whether a route (as Fastify's onRoute hook describes it) needs no API key. */
export function isPublicRoute(route: { url: string; config?: FastifyContextConfig }): boolean {
  if (route.config?.public === true) return true;
  return PUBLIC_PREFIXES.some((p) => route.url === p || route.url.startsWith(`${p}/`));
}

/**
 * Calls `attach` with every route that needs an API key, registered from now on, so it can add
 * that route's own hooks. Hooks that belong to the routes rather than to the whole app leave public
 * routes and unmatched URLs (answered 404 whatever the key) without them, and no request pays for
 * working out whether it is public.
 */
export function forAuthenticatedRoutes(app: FastifyInstance, attach: (route: RouteOptions) => void): void {
  app.addHook('onRoute', (route) => {
    if (!isPublicRoute(route)) attach(route);
  });
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
    // A callback hook: a key found in the authenticator's cache is accepted without a promise.
    forAuthenticatedRoutes(app, (route) => {
      // The dialects' clients send the key in `Authorization` (OpenAI: Bearer, Deepgram: Token);
      // only their /v1 routes read that header, so the native API keeps one way in (and /metrics'
      // bearer token stays its own).
      const bearer = route.url.startsWith('/v1/');
      appendRouteHook(route, 'onRequest', (request, _reply, done) => {
        const header = request.headers['x-api-key'];
        const raw = Array.isArray(header)
          ? header[0]
          : (header ?? (bearer ? authorizationToken(request.headers.authorization) : undefined));
        let auth: AuthContext | Promise<AuthContext | null>;
        try {
          auth =
            raw === undefined && opts.sessionAuth
              ? opts.sessionAuth(request).then((bySession) => bySession ?? opts.authenticator.authenticate(raw))
              : opts.authenticator.authenticate(raw);
        } catch (err) {
          return done(err as Error);
        }
        if (auth instanceof Promise) {
          auth.then((a) => {
            request.auth = a!;
            done();
          }, done);
        } else {
          request.auth = auth;
          done();
        }
      });
    });
  },
  { name: 'parla-auth', fastify: '5.x', dependencies: ['parla-request-id'] },
);

/**
 * The key of an `Authorization: Bearer <key>` (OpenAI) or `Authorization: Token <key>` (Deepgram)
 * header, scheme in any case, or undefined.
 */
export function authorizationToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const space = header.indexOf(' ');
  if (space < 0) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  if (scheme !== 'bearer' && scheme !== 'token') return undefined;
  return header.slice(space + 1).trim();
}
