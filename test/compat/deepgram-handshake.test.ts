// The pieces every Deepgram edge shares: the key in `Authorization: Token` on /v1 routes, the key
// of a WebSocket handshake (header or the browsers' `token, <key>` subprotocols), and the answer
// to a WebSocket handshake for a path no dialect serves (404 with the error body, not a dropped
// socket), on the API port.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { handshakeKey } from '../../src/compat/deepgram/ws-auth.js';
import { authorizationToken } from '../../src/http/auth.js';

let t: TestApp;
let port: number;
let key: string;

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  ({ apiKey: key } = await createTestAccount(t.services, { plan: 'pro', credits: 10_000 }));
});
after(() => t.close());

test('Authorization: Token <key> authenticates a /v1 route; a wrong scheme does not', async () => {
  const ok = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { authorization: `Token ${key}` } });
  assert.equal(ok.status, 200);
  const basic = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { authorization: `Basic ${key}` } });
  assert.equal(basic.status, 401);
});

test('authorizationToken reads Bearer and Token in any case, nothing else', () => {
  assert.equal(authorizationToken('Token abc'), 'abc');
  assert.equal(authorizationToken('bearer abc '), 'abc');
  assert.equal(authorizationToken('TOKEN abc'), 'abc');
  assert.equal(authorizationToken('Basic abc'), undefined);
  assert.equal(authorizationToken('Token'), undefined);
  assert.equal(authorizationToken(undefined), undefined);
});

test('handshakeKey: header first, then the token subprotocol pair', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  assert.deepEqual(handshakeKey(req({ authorization: 'Token k1' })), { key: 'k1', protocol: null });
  assert.deepEqual(handshakeKey(req({ 'sec-websocket-protocol': 'token, k2' })), { key: 'k2', protocol: 'token' });
  assert.deepEqual(handshakeKey(req({ 'sec-websocket-protocol': 'token' })), { key: undefined, protocol: null });
  assert.deepEqual(handshakeKey(req({})), { key: undefined, protocol: null });
});

test('a WebSocket handshake for an unserved path on the API port gets 404 with the error body', async () => {
  const answer = await new Promise<string>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(
        'GET /nowhere HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
    });
    let data = '';
    s.on('data', (d) => (data += d.toString()));
    s.on('end', () => resolve(data));
    s.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 404 Not Found\r\n/);
  assert.match(answer, /\r\nX-Request-ID: req_/i);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  assert.equal(body.success, false);
  assert.equal(body.error.code, 'NOT_FOUND');
});
