// Issue 30, item 1: no input on any socket may end the process. A real `parla serve` runs as a
// child process (with Wyoming enabled), and every socket type gets garbage and frames out of order:
// Deepgram's live socket (audio after CloseStream and after an empty frame, the ~20 random frames
// with encoding=opus that ended in 1008 and a crash), the native real-time socket, Deepgram's speak
// socket, Wyoming's TCP port, raw garbage on the HTTP and TLS ports, and the M4A that exhausted the
// heap. After each, the process must not have exited and /health must answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { cli, startNode, type NodeProcess } from '../helpers/node-process.js';
import { tempDir } from '../helpers/env.js';
import { HEAP_CRASH_M4A } from './decode-corpus.js';

let node: NodeProcess;
let key: string;
let wyomingPort: number;
let exited: string | null = null;
const tmp = tempDir('parla-survive-');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

before(async () => {
  const env = { PARLA_DATA_DIR: tmp.dir };
  key = (await cli(['accounts', 'create', '--name', 'survive', '--plan', 'enterprise', '--credits', '1000000'], env)).key.api_key;
  wyomingPort = await freePort();
  node = await startNode({ ...env, WYOMING_PORT: String(wyomingPort), WYOMING_API_KEY: key, REALTIME_IDLE_TIMEOUT_SECONDS: '5' });
  node.proc.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
});

after(async () => {
  await node?.kill();
  tmp.cleanup();
});

const port = () => Number(new URL(node.url).port);
const wsUrl = (path: string) => `ws://127.0.0.1:${port()}${path}`;

async function stillServing(what: string): Promise<void> {
  // Give a late uncaught exception the time to end the process.
  await sleep(500);
  assert.equal(exited, null, `${what}: the process ${exited}`);
  const res = await fetch(`${node.url}/health`);
  assert.equal(res.status, 200, `${what}: /health answered ${res.status}`);
}

/** Opens a socket; a 503 (every recognizer busy, or still loading on a loaded machine) is tried again. */
async function open(url: string, opts: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await openOnce(url, opts);
    } catch (err) {
      if (attempt >= 10 || !/503/.test(String(err))) throw err;
      await sleep(1000);
    }
  }
}

function openOnce(url: string, opts: WebSocket.ClientOptions): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts);
    ws.on('error', () => undefined);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('close', () => reject(new Error('closed before open')));
  });
}

const closed = (ws: WebSocket) =>
  new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve())));
const tone = (ms: number) => {
  const b = Buffer.alloc(Math.round(16 * ms) * 2);
  for (let i = 0; i < b.length / 2; i++) b.writeInt16LE(Math.round(3000 * Math.sin(i / 5)), i * 2);
  return b;
};
/** Sends without waiting, ignoring a socket already closed (the client keeps flushing). */
const spray = (ws: WebSocket, frames: Array<Buffer | string>) => {
  for (const f of frames) if (ws.readyState === ws.OPEN) ws.send(f, { binary: typeof f !== 'string' });
};

test('Deepgram live socket: audio after CloseStream, after an empty frame, while the close is under way', async () => {
  for (const closer of [JSON.stringify({ type: 'CloseStream' }), Buffer.alloc(0)]) {
    const ws = await open(wsUrl('/v1/listen?model=nova-3&encoding=linear16&sample_rate=16000'), {
      headers: { authorization: `Token ${key}` },
    });
    spray(ws, [tone(100), tone(100)]);
    ws.send(closer);
    // A microphone still flushing: frames keep coming until the close frame is read.
    for (let i = 0; i < 40 && ws.readyState === ws.OPEN; i++) {
      spray(ws, [tone(20)]);
      await sleep(5);
    }
    await closed(ws);
    await stillServing(`audio after ${typeof closer === 'string' ? 'CloseStream' : 'an empty frame'}`);
  }
});

test('Deepgram live socket, encoding=opus: random frames until 1008, then more', async () => {
  const ws = await open(wsUrl('/v1/listen?model=nova-3&encoding=opus'), { headers: { authorization: `Token ${key}` } });
  const closing = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  // An Ogg page start, then random bytes: the decoder gives up mid-stream.
  spray(ws, [Buffer.concat([Buffer.from('OggS'), Buffer.alloc(60, 7)])]);
  let seed = 1;
  for (let i = 0; i < 60 && ws.readyState === ws.OPEN; i++) {
    const b = Buffer.alloc(2000);
    for (let j = 0; j < b.length; j++) b[j] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    spray(ws, [b]);
    await sleep(10);
  }
  const code = await Promise.race([closing, sleep(15_000).then(() => -1)]);
  assert.ok(code === 1008 || code === 1000 || code === 1011, `closed with ${code}`);
  await stillServing('random Opus frames');
});

test('native real-time socket: garbage text, odd binary, audio after CloseStream', async () => {
  const ws = await open(`wss://127.0.0.1:${port() + 1}/api/v1/stt/realtime/stream?api_key=${key}`, { rejectUnauthorized: false });
  spray(ws, [
    '{',
    '{"type":',
    'null',
    '[]',
    '{"type":"Nope"}',
    '{"__proto__":{"type":"CloseStream"}}',
    Buffer.from([1]),
    tone(50),
    Buffer.from([2, 3, 4]),
  ]);
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  for (let i = 0; i < 40 && ws.readyState === ws.OPEN; i++) {
    spray(ws, [tone(20), 'x']);
    await sleep(5);
  }
  await closed(ws);
  await stillServing('native socket');
});

test('Deepgram speak socket: garbage, binary, messages after Close', async () => {
  const ws = await open(wsUrl('/v1/speak?model=aura-2-thalia-en&encoding=linear16'), { headers: { authorization: `Token ${key}` } });
  spray(ws, [
    'nope',
    '{"type":"Speak"}',
    '{"type":"Speak","text":"Hello there."}',
    '{"type":"Flush"}',
    Buffer.from([0, 1, 2]),
    '{"type":"Clear"}',
    '{"type":"Close"}',
  ]);
  for (let i = 0; i < 40 && ws.readyState === ws.OPEN; i++) {
    spray(ws, ['{"type":"Speak","text":"More."}', '{"type":"Flush"}', Buffer.from([9])]);
    await sleep(5);
  }
  await closed(ws);
  await stillServing('speak socket');
});

test('Wyoming: garbage, events out of order, writing after the server closed', async () => {
  const chunks = [
    'not json\n',
    '{"type":"audio-chunk","data":{"rate":16000,"width":2,"channels":1},"payload_length":4}\n\x00\x00\x00\x00',
    '{"type":"audio-stop"}\n',
    '{"type":"transcribe","data":{"language":"en"}}\n',
    '{"type":"audio-start","data":{"rate":16000,"width":2,"channels":1}}\n',
    '{"type":"audio-chunk","data":{"rate":0,"width":7,"channels":0},"payload_length":3}\nabc',
    '{"type":"audio-stop"}\n',
    '{"type":"synthesize","data":{"text":"Hi."}}\n',
    '{"type":"x","data_length":99999999999}\n',
  ];
  for (let round = 0; round < 2; round++) {
    const s = net.connect(wyomingPort, '127.0.0.1');
    s.on('error', () => undefined);
    await new Promise((r) => s.once('connect', r));
    for (const c of chunks) {
      if (s.destroyed) break;
      s.write(c);
      await sleep(20);
    }
    for (let i = 0; i < 20 && !s.destroyed; i++) {
      s.write(Buffer.alloc(1000, 0x41));
      await sleep(5);
    }
    s.destroy();
  }
  await stillServing('Wyoming');
});

test('raw garbage on the HTTP port and the TLS port, upgrades cut short', async () => {
  for (const bytes of [
    Buffer.from(
      'GET /v1/listen HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Token ' +
        key +
        '\r\n\r\n',
    ),
    Buffer.alloc(4096, 0xff),
  ]) {
    const s = net.connect(port(), '127.0.0.1');
    s.on('error', () => undefined);
    await new Promise((r) => s.once('connect', r));
    s.write(bytes);
    // Cut short while the upgrade is being admitted.
    await sleep(2);
    s.resetAndDestroy();
  }
  const t = tls.connect({ port: port() + 1, host: '127.0.0.1', rejectUnauthorized: false });
  t.on('error', () => undefined);
  await new Promise((r) => t.once('secureConnect', r));
  t.write(
    `GET /api/v1/stt/realtime/stream?api_key=${key} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  await sleep(2);
  t.destroy();
  const raw = net.connect(port() + 1, '127.0.0.1');
  raw.on('error', () => undefined);
  await new Promise((r) => raw.once('connect', r));
  raw.write(Buffer.alloc(2048, 0x16));
  await sleep(50);
  raw.destroy();
  await stillServing('raw garbage');
});

test('the M4A that exhausted the heap, on POST /v1/listen', async () => {
  const res = await fetch(`${node.url}/v1/listen?model=nova-3`, {
    method: 'POST',
    headers: { authorization: `Token ${key}`, 'content-type': 'audio/mp4' },
    body: readFileSync(HEAP_CRASH_M4A),
  });
  assert.equal(res.status, 422, await res.text());
  await stillServing('the heap-crash M4A');
});
