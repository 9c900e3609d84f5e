// Malformed input at the HTTP edge (issue 19, items 3 and 7): deeply nested JSON, bad
// percent-encodings, methods Node's parser refuses, CONNECT, oversized headers and broken framing
// all answer the error body of docs/interface.md with X-Request-ID, over a real socket, and the node
// keeps serving.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { assertErrorBody, parseResponse, rawExchange, rawRequest } from '../helpers/raw-http.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../src/http/json-body.js';

let t: TestApp;
let port: number;
let key: string;

before(async () => {
  t = await createTestApp();
  key = (await createTestAccount(t.services)).apiKey;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);

async function stillServes() {
  const res = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(res.status, 200);
}

test('JSON nested thousands of levels deep, on any field: 400 INVALID_REQUEST with the body', async () => {
  for (const [url, body] of [
    ['/api/v1/tts/generate', `{"text":${nested(5000)},"voice":"Aria"}`],
    ['/api/v1/tts/generate', `{"text":"hi","voice":${nested(20000, '{}')}}`],
    ['/api/v1/tts/stream', `{"text":"hi","voice":"Aria","speed":${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}}`],
    ['/api/v1/tts/generate', nested(100_000)],
  ] as const) {
    const res = await rawRequest(
      port,
      `POST ${url} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      body,
    );
    const err = assertErrorBody(res, 400, 'INVALID_REQUEST');
    assert.match(err.error.message, /nested more than 64 levels/);
    assert.equal(err.error.details.limit, MAX_JSON_DEPTH);
  }
  // The dashboard's JSON API shares the parser.
  const body = `{"email":${nested(8000)},"password":"x"}`;
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/api/session',
    headers: { 'content-type': 'application/json', origin: 'http://localhost' },
    payload: body,
  });
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().error.code, 'INVALID_REQUEST');
  await stillServes();
});

test('JSON within the depth limit is parsed as before; a field error repeats at most 200 characters', async () => {
  // 60 levels is allowed: the field is simply of the wrong type.
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: `{"text":"hi","voice":${nested(60)}}`,
  });
  assert.equal(res.statusCode, 400, res.body);
  const err = res.json().error;
  assert.equal(err.code, 'INVALID_VOICE');
  assert.ok(err.details.provided.length <= 203, `provided is ${err.details.provided.length} characters`);
  const long = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': key },
    payload: { text: 'hi', voice: 'Aria', format: 'x'.repeat(5000) },
  });
  assert.equal(long.statusCode, 400);
  assert.equal(long.json().error.code, 'INVALID_FORMAT');
  assert.equal(long.json().error.details.provided, `${'x'.repeat(200)}...`);
  // Prototype poisoning is still refused by the parser underneath.
  const poisoned = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: '{"text":"hi","voice":"Aria","__proto__":{"x":1}}',
  });
  assert.equal(poisoned.statusCode, 400, poisoned.body);
  assert.equal(poisoned.json().error.code, 'INVALID_REQUEST');
});

test('the depth scan counts brackets inside strings as text, and escapes inside strings', () => {
  assert.equal(exceedsJsonDepth(nested(64)), false);
  assert.equal(exceedsJsonDepth(nested(65)), true);
  assert.equal(exceedsJsonDepth(`{"text":"${'['.repeat(5000)}"}`), false);
  assert.equal(exceedsJsonDepth(`{"text":"\\"${'{'.repeat(500)}"}`), false);
  assert.equal(exceedsJsonDepth(`{"text":"\\\\"${'{'.repeat(500)}}`), true);
});

test('a bad percent-encoding in the path: 400 INVALID_REQUEST with the body, not FST_ERR_BAD_URL', async () => {
  for (const path of ['/dashboard/assets/%ZZ', '/api/v1/%ZZ', '/api/v1/voices/%E0%A4%A', '/%']) {
    const res = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
    const body = assertErrorBody(res, 400, 'INVALID_REQUEST');
    assert.ok(!res.body.includes('FST_'), res.body);
    assert.match(body.error.message, /percent-encoding/);
  }
});

test('methods Node refuses, garbage and broken framing: 400 INVALID_REQUEST with the body, connection closed', async () => {
  for (const method of ['CONNECT_X', 'FOO', 'G@T', 'GET\u0000', 'X'.repeat(40)]) {
    const { text, closedByServer } = await rawExchange(port, `${method} /api/v1/models HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
    assertErrorBody(parseResponse(text), 400, 'INVALID_REQUEST');
    assert.ok(closedByServer, method);
  }
  for (const junk of [
    '\u0000\u0001\u0002garbage\r\n\r\n',
    'GET /health HTTP/9.9\r\n\r\n',
    'GET /health HTTP/1.1\r\nHost x\r\n\r\n',
    'POST /api/v1/tts/generate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello',
    'POST /api/v1/tts/generate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n',
  ]) {
    const { text } = await rawExchange(port, junk);
    assertErrorBody(parseResponse(text), 400, 'INVALID_REQUEST');
  }
  // A body shorter than its Content-Length, the client then done sending.
  const { text } = await rawExchange(
    port,
    `POST /api/v1/tts/generate HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"text":`,
    { halfClose: true },
  );
  if (text) assertErrorBody(parseResponse(text), 400, 'INVALID_REQUEST');
  await stillServes();
});

test('known but unrouted methods (PROPFIND, DELETE /health): 404 NOT_FOUND with the body', async () => {
  for (const method of ['PROPFIND', 'PURGE', 'DELETE']) {
    const res = await rawRequest(port, `${method} /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assertErrorBody(res, 404, 'NOT_FOUND');
  }
});

test('CONNECT: 404 NOT_FOUND with the body, where Node would just drop the connection', async () => {
  const { text, closedByServer } = await rawExchange(port, 'CONNECT /api/v1/models HTTP/1.1\r\nHost: x\r\n\r\n');
  const body = assertErrorBody(parseResponse(text), 404, 'NOT_FOUND');
  assert.match(body.error.message, /CONNECT \/api\/v1\/models/);
  assert.ok(closedByServer);
  const tunnel = await rawExchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  assertErrorBody(parseResponse(tunnel.text), 404, 'NOT_FOUND');
  await stillServes();
});

test("headers over Node's limit: 413 REQUEST_TOO_LARGE with the body", async () => {
  const { text } = await rawExchange(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  const body = assertErrorBody(parseResponse(text), 413, 'REQUEST_TOO_LARGE');
  assert.match(body.error.message, /headers/);
  await stillServes();
});

test('client text repeated in a message is cut to 200 characters (a long unknown path, a long Content-Type)', async () => {
  const path = `/api/v1/${'p'.repeat(8000)}`;
  const res = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
  const body = assertErrorBody(res, 404, 'NOT_FOUND');
  assert.ok(body.error.message.length < 260, body.error.message);
  const ct = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': key, 'content-type': `application/x-${'c'.repeat(5000)}` },
    payload: 'x',
  });
  assert.equal(ct.statusCode, 400, ct.body);
  assert.ok(ct.json().error.message.length < 300, ct.json().error.message);
});

test('garbage pipelined after a good request: the good answer arrives whole, then the 400', async () => {
  const { text } = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\nFOO /x HTTP/1.1\r\nHost: x\r\n\r\n');
  const first = parseResponse(text);
  assert.equal(first.status, 200);
  assert.equal(JSON.parse(first.body).status, 'healthy');
  const rest = text.slice(text.indexOf(first.body) + first.body.length);
  assertErrorBody(parseResponse(rest), 400, 'INVALID_REQUEST');
});

test("an Expect header other than 100-continue: 400 INVALID_REQUEST with the body, not Node's bare 417; the connection keeps serving", async () => {
  const body = JSON.stringify({ text: 'Hi.', voice: 'Aria' });
  const head = `POST /api/v1/tts/generate HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nExpect: teapot\r\nContent-Length: ${body.length}\r\n\r\n`;
  // The refused request's body, then a second request on the same connection.
  const { text } = await rawExchange(port, `${head}${body}GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  const first = parseResponse(text);
  const err = assertErrorBody(first, 400, 'INVALID_REQUEST');
  assert.match(err.error.message, /Expect/);
  assert.equal(err.error.details.provided, 'teapot');
  const second = parseResponse(text.slice(text.indexOf(first.body) + first.body.length));
  assert.equal(second.status, 200);
  // 100-continue is still met as before.
  const { text: continuedText } = await rawExchange(
    port,
    `${head.replace('teapot', '100-continue').replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}${body}`,
  );
  assert.match(continuedText, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
  assert.equal(parseResponse(continuedText.slice(continuedText.indexOf('\r\n\r\n') + 4)).status, 200);
});
