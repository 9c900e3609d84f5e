// Serves the built dashboard (dist/dashboard, made by `npm run build` with Vite) at /dashboard.
// Hashed assets are cached for a year; index.html is revalidated every time, so a new build is
// picked up at once. Page paths (/dashboard/keys, ...) answer index.html: the page routes itself.
// The dashboard's JSON API lives beside this under /dashboard/api (its own plugin).

import { access } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { PROJECT_ROOT } from '../config.js';
import { ApiError } from '../errors.js';

export const DASHBOARD_DIST = path.join(PROJECT_ROOT, 'dist', 'dashboard');

/**
 * Only this origin's scripts, styles and connections; audio from blob: URLs (the playground
 * plays what it synthesized); never framed, so the key and revoke buttons cannot be clickjacked.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parla dashboard not built</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}code{background:#eef;padding:.1em .3em;border-radius:4px}</style>
</head><body>
<h1>The dashboard has not been built</h1>
<p>This Parla server found no built dashboard in <code>dist/dashboard</code>.
Run <code>npm run build</code> in the Parla directory (or start with <code>npm start</code>, which builds it),
then reload this page. The API itself is running.</p>
</body></html>
`;

export interface DashboardStaticOptions {
  /** The built dashboard; dist/dashboard of the project by default. */
  root?: string;
}

/**
 * One segment of a path the built page can have: Vite's file names (letters, digits, `-`, `_`,
 * dots inside) and the page's own paths. No "." or "..", no dot files, no NUL, no encoded slash
 * or backslash: a path with any other segment names nothing here and is never handed to the file
 * server. Anchored and without nested quantifiers: linear time.
 */
const PAGE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Whether every segment of `rest` (the path under /dashboard/, decoded) can name part of the page. */
export function isPagePath(rest: string): boolean {
  if (rest === '') return true;
  // One trailing slash is the same page (the router ignores trailing slashes too).
  const trimmed = rest.endsWith('/') ? rest.slice(0, -1) : rest;
  return trimmed.length <= 512 && trimmed.split('/').every((segment) => PAGE_SEGMENT.test(segment));
}

function securityHeaders(reply: FastifyReply, csp: string): void {
  reply
    .header('Content-Security-Policy', csp)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'same-origin')
    .header('X-Frame-Options', 'DENY');
}

export const dashboardStatic: FastifyPluginAsync<DashboardStaticOptions> = async (app, opts) => {
  const root = opts.root ?? DASHBOARD_DIST;
  // Only reply.sendFile is used (serve: false): the routes below decide what each path means.
  // Dot files (the build's stamp) are not part of the page: 404.
  await app.register(fastifyStatic, { root, serve: false, dotfiles: 'ignore' });

  const built = () =>
    access(path.join(root, 'index.html')).then(
      () => true,
      () => false,
    );

  const sendIndex = (reply: FastifyReply) => {
    securityHeaders(reply, DASHBOARD_CSP);
    return reply.header('Cache-Control', 'no-cache').sendFile('index.html', root, { cacheControl: false });
  };

  const handler = async (request: { params: unknown }, reply: FastifyReply) => {
    const rest = ((request.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
    // Unknown dashboard API paths are API errors in the service's envelope, never the page.
    if (rest === 'api' || rest.startsWith('api/')) throw new ApiError('NOT_FOUND');
    if (!isPagePath(rest)) throw new ApiError('NOT_FOUND', { message: 'No such page or file in the dashboard.' });
    if (!(await built())) {
      securityHeaders(reply, "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
      return reply.code(503).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    }
    const last = rest.split('/').pop() ?? '';
    // A page path has no file extension: the single-page app answers it.
    if (rest === '' || rest === 'index.html' || !last.includes('.')) return sendIndex(reply);
    securityHeaders(reply, DASHBOARD_CSP);
    // Vite names every file under assets/ by its content hash: it never changes under that name.
    if (rest.startsWith('assets/')) return reply.sendFile(rest, root, { maxAge: '365d', immutable: true });
    return reply.sendFile(rest, root, { maxAge: '1h' });
  };

  const route = { schema: { hide: true }, config: { public: true } };
  app.get('/dashboard', route, handler);
  app.get('/dashboard/*', route, handler);
};
