// Keep-alive after a refused upload (issue 19, item 12): a client that reuses its connection
// (one http.Agent socket) after the server refused an upload, early (no key, a bad key, a wrong
// Content-Type, a body over the limit) or part-way through its body (a malformed part, too many
// files or fields), gets its next, well-formed request answered: never a stall, never a reset.
// Either the server keeps the connection and reads what was left of the refused body, or it says
// Connection: close and the client opens a new one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

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

interface Answer {
  status: number;
  body: string;
  connection: string | undefined;
  keepAlive: string | undefined;
  socket: Socket;
}

function send(agent: http.Agent, opts: http.RequestOptions, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent, ...opts }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          body: Buffer.concat(chunks).toString('utf8'),
          connection: res.headers.connection,
          keepAlive: res.headers['keep-alive'] as string | undefined,
          socket: req.socket!,
        }),
      );
      res.on('error', reject);
    });
    // A stalled connection shows as this, not as the test runner's timeout.
    req.setTimeout(8000, () => req.destroy(new Error(`no answer within 8 s to ${opts.method} ${opts.path}`)));
    req.on('error', reject);
    req.end(body);
  });
}

function part(boundary: string, name: string, bytes: number, filename?: string): Buffer {
  const disposition = `form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}`;
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${filename ? 'Content-Type: audio/wav\r\n' : ''}\r\n`),
    Buffer.alloc(bytes, 0x41),
    Buffer.from('\r\n'),
  ]);
}
const close = (boundary: string) => Buffer.from(`--${boundary}--\r\n`);
const MB = 1024 * 1024;
const upload = (headers: Record<string, string>) => ({ method: 'POST', path: '/api/v1/stt/transcribe', headers });
const multipartType = 'multipart/form-data; boundary=xyz';

const REFUSALS: Array<[string, http.RequestOptions, Buffer, number]> = [
  ['no key', upload({ 'content-type': multipartType }), Buffer.concat([part('xyz', 'file', 3 * MB, 'a.wav'), close('xyz')]), 401],
  [
    'a bad key',
    upload({ 'x-api-key': 'svc_live_nope', 'content-type': multipartType }),
    Buffer.concat([part('xyz', 'file', 3 * MB, 'a.wav'), close('xyz')]),
    401,
  ],
  [
    'a Content-Type without a parser',
    upload({ 'x-api-key': '', 'content-type': 'application/octet-stream' }),
    Buffer.alloc(3 * MB, 0x41),
    400,
  ],
  ['a text/plain body', upload({ 'x-api-key': '', 'content-type': 'text/plain' }), Buffer.alloc(MB, 0x41), 400],
  ['a text/plain body over the limit', upload({ 'x-api-key': '', 'content-type': 'text/plain' }), Buffer.alloc(3 * MB, 0x41), 413],
  [
    'a boundary over 256 characters',
    upload({ 'x-api-key': '', 'content-type': `multipart/form-data; boundary=${'b'.repeat(300)}` }),
    Buffer.alloc(3 * MB, 0x41),
    400,
  ],
  [
    'a malformed first part, then megabytes',
    upload({ 'x-api-key': '', 'content-type': multipartType }),
    Buffer.concat([
      Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n${'H'.repeat(90 * 1024)}`),
      Buffer.alloc(3 * MB, 0x42),
    ]),
    400,
  ],
  [
    'two files',
    upload({ 'x-api-key': '', 'content-type': multipartType }),
    Buffer.concat([
      part('xyz', 'file', 1000, 'a.wav'),
      part('xyz', 'other', 3 * MB, 'b.wav'),
      part('xyz', 'third', 1 * MB, 'c.wav'),
      close('xyz'),
    ]),
    400,
  ],
  [
    'too many fields before the file',
    upload({ 'x-api-key': '', 'content-type': multipartType }),
    Buffer.concat([...Array.from({ length: 40 }, (_, i) => part('xyz', `f${i}`, 10)), part('xyz', 'file', 3 * MB, 'a.wav'), close('xyz')]),
    400,
  ],
  [
    'a "__proto__" field before the file',
    upload({ 'x-api-key': '', 'content-type': multipartType }),
    Buffer.concat([part('xyz', '__proto__', 10), part('xyz', 'file', 3 * MB, 'a.wav'), close('xyz')]),
    400,
  ],
  [
    'a JSON body over the limit',
    { method: 'POST', path: '/api/v1/tts/generate', headers: { 'x-api-key': '', 'content-type': 'application/json' } },
    Buffer.from(`{"text":"${'a'.repeat(3 * MB)}","voice":"Aria"}`),
    413,
  ],
  [
    'a TTS body with a bad key',
    { method: 'POST', path: '/api/v1/tts/generate', headers: { 'x-api-key': 'svc_live_nope', 'content-type': 'application/json' } },
    Buffer.from(`{"text":"${'a'.repeat(MB)}","voice":"Aria"}`),
    401,
  ],
];

test('after every kind of refused upload, the next well-formed request on the same agent is answered', async () => {
  for (const [name, opts, body, status] of REFUSALS) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const headers = { ...(opts.headers as Record<string, string>) };
      if (headers['x-api-key'] === '') headers['x-api-key'] = key;
      const refused = await send(agent, { ...opts, headers }, body);
      assert.equal(refused.status, status, `${name}: ${refused.body.slice(0, 300)}`);
      assert.equal(JSON.parse(refused.body).success, false, name);
      for (let i = 0; i < 2; i++) {
        const next = await send(agent, { method: 'GET', path: '/api/v1/models', headers: { 'x-api-key': key } });
        assert.equal(next.status, 200, `${name}: ${next.body.slice(0, 200)}`);
        // A connection the server kept is the one reused; one it closed said so first.
        if (i === 0 && refused.connection !== 'close') assert.equal(next.socket, refused.socket, `${name}: the kept connection is reused`);
      }
      // And a well-formed upload on it too.
      const form = Buffer.concat([part('xyz', 'model', 0), close('xyz')]);
      const again = await send(agent, upload({ 'x-api-key': key, 'content-type': multipartType }), form);
      assert.equal(again.status, 400, `${name}: ${again.body.slice(0, 200)}`);
      assert.equal(JSON.parse(again.body).error.code, 'MISSING_FILE', name);
    } finally {
      agent.destroy();
    }
  }
});

test('the server tells clients how long it keeps an idle connection, and keeps it that long', async () => {
  // Clients that honour Keep-Alive: timeout (undici, fetch) then always close first: a request
  // never meets a connection the server is closing as idle.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await send(agent, { method: 'GET', path: '/health' });
    const seconds = Number(/timeout=(\d+)/.exec(first.keepAlive ?? '')?.[1]);
    assert.ok(seconds >= 60, `Keep-Alive: ${first.keepAlive}`);
    await new Promise((r) => setTimeout(r, 2000));
    const second = await send(agent, { method: 'GET', path: '/health' });
    assert.equal(second.status, 200);
    assert.equal(second.socket, first.socket);
  } finally {
    agent.destroy();
  }
});
