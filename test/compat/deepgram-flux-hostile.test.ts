// Hostile input on Deepgram Flux (WS /v2/listen): hostile handshakes are refused with Deepgram's
// error body before anything is admitted; inside a stream, garbage messages, bad Configure
// messages, ForceEndTurn outside a turn, empty and odd binary frames get Error / ConfigureFailure
// messages (with their sequence_id) and the stream goes on; every slot comes back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let port: number;
let rich: string;
let richAccount: string;

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  ({ apiKey: rich, accountId: richAccount } = await createTestAccount(t.services, { credits: 100_000 }));
  await t.services.registry.whenReady();
});
after(() => t.close());

const WS_HEADERS = [
  'Upgrade: websocket',
  'Connection: Upgrade',
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
  'Sec-WebSocket-Version: 13',
];

function rawUpgrade(path: string, headers: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write([`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...headers].join('\r\n') + '\r\n\r\n'),
    );
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on('data', (d) => {
      chunks.push(d);
      if (Buffer.concat(chunks).toString().startsWith('HTTP/1.1 101')) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString();
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe("hostile Flux handshakes are refused in Deepgram's error body", () => {
  const q = (params: string) => `/v2/listen?${params}`;
  const cases: Array<[string, string, number, string?]> = [
    ['no key', q('model=flux-general-en'), 401, ''],
    ['no model', q('encoding=linear16'), 400],
    ['unknown model', q('model=nope'), 400],
    ['model of 5,000 characters', q(`model=flux-${'x'.repeat(5000)}`), 400],
    ['encoding flac', q('model=flux-general-en&encoding=flac'), 400],
    ['sample_rate 4000', q('model=flux-general-en&sample_rate=4000'), 400],
    ['sample_rate 1e4', q('model=flux-general-en&sample_rate=1e4'), 400],
    ['eot_threshold 0.2', q('model=flux-general-en&eot_threshold=0.2'), 400],
    ['eot_threshold Infinity', q('model=flux-general-en&eot_threshold=Infinity'), 400],
    ['eager above eot', q('model=flux-general-en&eot_threshold=0.6&eager_eot_threshold=0.8'), 400],
    ['eot_timeout_ms 99999999', q('model=flux-general-en&eot_timeout_ms=99999999'), 400],
    ['eot_timeout_ms 700.5', q('model=flux-general-en&eot_timeout_ms=700.5'), 400],
    ['eot_threshold twice, differently', q('model=flux-general-en&eot_threshold=0.6&eot_threshold=0.7'), 400],
    ['keyterm of 200 characters', q(`model=flux-general-en&keyterm=${'k'.repeat(200)}`), 400],
    ['redact=pci', q('model=flux-general-en&redact=pci'), 400],
    ['numerals maybe', q('model=flux-general-en&numerals=maybe'), 400],
  ];
  for (const [name, path, status, key] of cases) {
    test(name, async () => {
      const res = await rawUpgrade(path, key === '' ? WS_HEADERS : [...WS_HEADERS, `Authorization: Token ${rich}`]);
      assert.equal(res.status, status, res.body);
      const body = JSON.parse(res.body) as Record<string, unknown>;
      assert.equal(typeof body.err_code, 'string');
      assert.equal(typeof body.err_msg, 'string');
    });
  }
});

describe('hostile messages inside a Flux stream', () => {
  test('garbage, bad Configure, ForceEndTurn outside a turn, empty binary: answered, and the stream goes on to a clean close', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v2/listen?model=flux-general-en`, { headers: { authorization: `Token ${rich}` } });
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const nextOf = (type: string) =>
      new Promise<any>((resolve, reject) => {
        const from = messages.length;
        const timer = setInterval(() => {
          const m = messages.slice(from).find((x) => x.type === type);
          if (m) {
            clearInterval(timer);
            resolve(m);
          }
        }, 10);
        setTimeout(() => {
          clearInterval(timer);
          reject(new Error(`no ${type}; got ${JSON.stringify(messages.map((x) => x.type))}`));
        }, 10_000);
      });
    for (const frame of ['{', 'null', '[1]', '"Configure"', '{"type":"Explode"}', '{"type":42}', '['.repeat(100_000)]) {
      const err = nextOf('Error');
      ws.send(frame);
      const e = await err;
      assert.equal(typeof e.code, 'string');
      assert.equal(typeof e.description, 'string');
    }
    for (const configure of [
      { type: 'Configure', thresholds: 'high' },
      { type: 'Configure', thresholds: { eot_threshold: 5 } },
      { type: 'Configure', thresholds: { eager_eot_threshold: 0.9, eot_threshold: 0.5 } },
      { type: 'Configure', keyterms: ['k'.repeat(101)] },
      { type: 'Configure', keyterms: [7] },
      { type: 'Configure', keyterms: Array.from({ length: 101 }, (_, i) => `t${i}`) },
      { type: 'Configure', thresholds: null },
    ]) {
      const failure = nextOf('ConfigureFailure');
      ws.send(JSON.stringify(configure));
      await failure;
    }
    ws.send('{"type":"ForceEndTurn"}');
    ws.send(Buffer.alloc(0));
    ws.send(Buffer.from([1, 2, 3])); // an odd byte is carried
    ws.send('{"type":"KeepAlive"}');
    const ok = nextOf('ConfigureSuccess');
    ws.send('{"type":"Configure","thresholds":{"eot_timeout_ms":2000}}');
    assert.equal((await ok).thresholds.eot_timeout_ms, 2000);
    // Other keyterms (decision #76): accepted, in effect from the next utterance, echoed.
    const rekeyed = nextOf('ConfigureSuccess');
    ws.send('{"type":"Configure","keyterms":["new term"," Parla "]}');
    assert.deepEqual((await rekeyed).keyterms, ['new term', 'Parla']);
    assert.equal(messages.filter((m) => m.type === 'TurnInfo').length, 0, 'no turn from garbage');
    assert.deepEqual(
      messages.map((m) => m.sequence_id),
      messages.map((_, i) => i),
    );
    ws.send('{"type":"CloseStream"}');
    assert.equal(await closed, 1000);
    for (let i = 0; i < 50 && (await t.services.limiter.slotsInUse(richAccount)) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await t.services.limiter.slotsInUse(richAccount), 0);
  });
});
