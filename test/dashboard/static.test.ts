// Serving the built dashboard: page paths answer index.html (never cached), hashed assets are
// cached for good, everything carries the Content-Security-Policy, unknown dashboard API paths
// are API errors, and a server without a build answers a 503 page that says what to do.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/env.js';
import { assertErrorBody, rawRequest } from '../helpers/raw-http.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { DASHBOARD_CSP, DASHBOARD_DIST, dashboardStatic } from '../../src/dashboard/static.js';

let t: TestApp;
before(async () => {
  execFileSync('bash', ['scripts/build-dashboard.sh'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  t = await createTestApp();
});
after(() => t.close());

describe('the built dashboard', () => {
  test('page paths answer index.html, revalidated every time, with the CSP', async () => {
    for (const url of [
      '/dashboard',
      '/dashboard/',
      '/dashboard/keys',
      '/dashboard/usage',
      '/dashboard/jobs',
      '/dashboard/playground/',
      '/dashboard/sign-in',
      '/dashboard/index.html',
    ]) {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
      assert.equal(res.headers['content-security-policy'], DASHBOARD_CSP);
      assert.equal(res.headers['x-frame-options'], 'DENY');
      assert.match(res.body, /<div id="app"><\/div>/);
      // No key is needed to load the page.
      assert.equal(res.headers['x-ratelimit-limit'], undefined);
    }
  });

  test('hashed assets are cached for a year; the page references only this origin', async () => {
    const html = (await t.app.inject({ url: '/dashboard' })).body;
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(refs.length >= 3, refs.join(' '));
    for (const ref of refs) assert.match(ref, /^\/dashboard\//, 'no CDN, no other origin');
    const assets = readdirSync(path.join(DASHBOARD_DIST, 'assets')).filter((f) => /\.(js|css)$/.test(f));
    assert.ok(assets.some((f) => f.endsWith('.js')) && assets.some((f) => f.endsWith('.css')));
    for (const file of assets) {
      const res = await t.app.inject({ url: `/dashboard/assets/${file}` });
      assert.equal(res.statusCode, 200, file);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.match(String(res.headers['content-type']), file.endsWith('.js') ? /javascript/ : /text\/css/);
      // A production bundle: development JSX would carry this machine's file paths.
      assert.ok(!res.body.includes(PROJECT_ROOT), `${file} mentions ${PROJECT_ROOT}`);
    }
    const head = await t.app.inject({ method: 'HEAD', url: `/dashboard/assets/${assets[0]}` });
    assert.equal(head.statusCode, 200);
  });

  test('a missing file is 404 in the API error body, not the page; so is an unknown dashboard API path', async () => {
    for (const url of ['/dashboard/assets/index-missing.js', '/dashboard/api/nothing-here', '/dashboard/api']) {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 404, url);
      const body = res.json();
      assert.equal(body.success, false);
      assert.equal(body.error.code, 'NOT_FOUND');
    }
  });

  test('paths that climb out of the build are refused', async () => {
    for (const url of [
      '/dashboard/../package.json',
      '/dashboard/%2e%2e/package.json',
      '/dashboard/assets/..%2f..%2fpackage.json',
      '/dashboard/.built',
    ]) {
      const res = await t.app.inject({ url });
      assert.ok([400, 403, 404].includes(res.statusCode), `${url}: ${res.statusCode}`);
      assert.doesNotMatch(res.body, /"name": "parla"/);
    }
  });

  test('odd paths sent as-is: 404 NOT_FOUND in the error body, never a 500 and never a file outside the build', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    const paths = [
      '/dashboard/../package.json',
      '/dashboard/%2e%2e',
      '/dashboard/%2e%2e/package.json',
      '/dashboard/..%2f..%2fpackage.json',
      '/dashboard/assets/..%2f..%2f..%2fpackage.json',
      '/dashboard/assets/a%00.js',
      '/dashboard/%00',
      '/dashboard/./index.html',
      '/dashboard/assets//index.js',
      '/dashboard/assets/%5c..%5c..%5cpackage.json',
      '/dashboard/.built',
      '/dashboard/assets/.hidden.js',
      '/dashboard/..',
      '/dashboard/...',
      '/dashboard/assets/a%20b.js',
      `/dashboard/assets/${'a'.repeat(600)}.js`,
    ];
    for (const p of paths) {
      const res = await rawRequest(port, `GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assertErrorBody(res, 404, 'NOT_FOUND');
      assert.doesNotMatch(res.body, /"name": ?"parla"/, p);
    }
    // A bad percent-encoding is refused by the router before the dashboard sees it.
    assertErrorBody(
      await rawRequest(port, 'GET /dashboard/assets/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      400,
      'INVALID_REQUEST',
    );
    // The page and its assets are served as before.
    assert.equal((await rawRequest(port, 'GET /dashboard/keys HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status, 200);
    const asset = readdirSync(path.join(DASHBOARD_DIST, 'assets')).find((f) => f.endsWith('.js'))!;
    assert.equal((await rawRequest(port, `GET /dashboard/assets/${asset} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).status, 200);
  });
});

test('without a build: 503 with a page that says to run npm run build, and no crash', async () => {
  const empty = tempDir();
  const app = Fastify();
  await app.register(dashboardStatic, { root: empty.dir });
  try {
    for (const url of ['/dashboard', '/dashboard/keys', '/dashboard/assets/index-abc.js']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 503, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(res.body, /npm run build/);
    }
  } finally {
    await app.close();
    empty.cleanup();
  }
});
