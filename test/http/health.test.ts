import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('GET /health and /api/v1/health need no key and report the package version', async () => {
  const version = JSON.parse(readFileSync('package.json', 'utf8')).version;
  for (const url of ['/health', '/api/v1/health']) {
    const res = await t.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.status, 'healthy');
    assert.equal(body.version, version);
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.ok(Math.abs(Date.parse(body.timestamp) - Date.now()) < 60_000);
    assert.match(body.timestamp, /Z$/);
    assert.equal(body.checks.store.ok, true);
    assert.equal(body.checks.store.kind, 'sqlite');
  }
});

test('OpenAPI document is generated and the docs page is served', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(doc.paths['/health']);
  assert.ok(doc.paths['/api/v1/usage']);
  assert.ok(doc.paths['/api/v1/user/credits']);
  const ui = await t.app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(ui.statusCode, 200);
  assert.match(ui.headers['content-type'] as string, /html/);
});
