// Broken multipart uploads on the three STT endpoints (issue 19, item 4): no boundary, a boundary
// that is not in the body, one over busboy's 256 characters, malformed part headers, a body that
// ends mid-part (complete by its Content-Length, or the client stopping early) all answer 400
// INVALID_REQUEST in the error body, cost nothing, and leave the node serving.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { assertErrorBody, parseResponse, rawExchange, rawRequest } from '../helpers/raw-http.js';

let t: TestApp;
let port: number;
let key: string;
let accountId: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 10_000 }));
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

const ENDPOINTS = ['/api/v1/stt/transcribe', '/api/v1/stt/cipher/transcribe', '/api/v1/stt/lucid/transcribe'];

function filePart(boundary: string, bytes = 2000): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF${'\u0001'.repeat(bytes)}\r\n--${boundary}--\r\n`;
}

function head(url: string, contentType: string, length: number): string {
  return `POST ${url} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;
}

const FAULTS: Array<[string, string, string]> = [
  ['no boundary', 'multipart/form-data', filePart('abc')],
  ['an empty boundary', 'multipart/form-data; boundary=', filePart('abc')],
  ['a boundary not in the body', 'multipart/form-data; boundary=zzz', filePart('abc')],
  ['a boundary over 256 characters', `multipart/form-data; boundary=${'b'.repeat(300)}`, filePart('b'.repeat(300))],
  ['a body cut off mid-part', 'multipart/form-data; boundary=abc', filePart('abc').slice(0, 150)],
  ['a body cut off in the part headers', 'multipart/form-data; boundary=abc', filePart('abc').slice(0, 40)],
  [
    'part headers without a blank line',
    'multipart/form-data; boundary=abc',
    `--abc\r\nContent-Disposition: form-data; name="file"${'x'.repeat(100)}--abc--`,
  ],
  [
    'header of a part over the limit',
    'multipart/form-data; boundary=abc',
    `--abc\r\nX-Pad: ${'p'.repeat(100_000)}\r\n\r\ndata\r\n--abc--\r\n`,
  ],
];

test('every multipart fault on every STT endpoint: 400 INVALID_REQUEST with the body, no credits taken', async () => {
  const before = await t.services.store.getBalance(accountId, 'live');
  for (const url of ENDPOINTS) {
    for (const [name, contentType, body] of FAULTS) {
      const res = await rawRequest(port, head(url, contentType, Buffer.byteLength(body, 'latin1')), body);
      assert.equal(res.status, 400, `${url} ${name}: ${res.status} ${res.body.slice(0, 300)}`);
      // Busboy skips a part whose headers pass its limit: the form then lacks the file (or, on
      // the Lucid endpoint, names no Lucid model), a validation error of its own.
      const err = assertErrorBody(
        res,
        400,
        name === 'header of a part over the limit' ? JSON.parse(res.body).error.code : 'INVALID_REQUEST',
      );
      assert.equal(err.error.category, 'validation');
    }
  }
  assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
});

test('the unreadable ones say the body could not be read', async () => {
  for (const [name, contentType, body] of FAULTS.slice(0, 7)) {
    const res = await rawRequest(port, head(ENDPOINTS[0]!, contentType, Buffer.byteLength(body, 'latin1')), body);
    const err = assertErrorBody(res, 400, 'INVALID_REQUEST');
    assert.match(err.error.message, /multipart body could not be read/, name);
  }
});

test('a client that declares more than it sends and stops: the node answers what it can and keeps serving', async () => {
  for (const url of ENDPOINTS) {
    const body = filePart('abc').slice(0, 150);
    const data = `POST ${url} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=abc\r\nContent-Length: 100000\r\n\r\n${body}`;
    const { text } = await rawExchange(port, data, { halfClose: true });
    // The request never completed, so the answer (if the socket still takes one) is a 400.
    if (text) assert.equal(parseResponse(text).status, 400, text.slice(0, 300));
    // And one that simply vanishes mid-part.
    await rawExchange(port, data, { waitMs: 200 });
  }
  const res = await rawRequest(port, 'GET /api/v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(res.status, 401, 'still answering');
  assert.equal(await t.services.limiter.slotsInUse(accountId), 0, 'no slot left held by the abandoned uploads');
});
