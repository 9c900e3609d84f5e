// What the hostile suites of the live sockets share (hostile-realtime.test.ts: the native socket
// over TLS; hostile-deepgram-live.test.ts: Deepgram's /v1/listen on the API port): the event-loop
// guard around every case, an upgrade request written by hand with its whole answer parsed, the
// WebSocket handshake headers, the account's slots in use, and the frame-level cases they all answer alike.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type WebSocket from 'ws';
import type { Duplex } from 'node:stream';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { SETTINGS, type HostileService, type Tally } from './harness.js';
import { parseResponse, sendRaw, type Outcome } from './wire.js';

export const WS_HEADERS: Array<[string, string]> = [
  ['Upgrade', 'websocket'],
  ['Connection', 'Upgrade'],
  ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
  ['Sec-WebSocket-Version', '13'],
];

/** The event-loop delay during each case: enable() before the suite, disable() after it. */
export function loopGuard(tally: Tally) {
  const eld = monitorEventLoopDelay({ resolution: 1 });
  return {
    enable: () => eld.enable(),
    disable: () => eld.disable(),
    /** Runs fn and fails when the event loop stalled past the bound meanwhile. */
    async measured<T>(name: string, fn: () => Promise<T>): Promise<T> {
      eld.reset();
      await sleep(2);
      const out = await fn();
      await sleep(2);
      const ms = eld.max / 1e6;
      if (ms > tally.worstDelayMs) {
        tally.worstDelayMs = ms;
        tally.worstDelayCase = name;
      }
      assert.ok(ms <= SETTINGS.maxLoopDelayMs * 2, `event loop delayed ${ms.toFixed(0)} ms`);
      return out;
    },
  };
}

/**
 * An upgrade request written by hand on the socket `connect` opens (calling back once connected);
 * the server's whole answer, parsed. A refusal is the whole answer; a 101 means the stream opened.
 */
export function rawUpgrade(
  connect: (onConnect: () => void) => Duplex,
  host: string,
  path: string,
  headers: Array<[string, string]>,
  timeoutMs = SETTINGS.timeoutMs,
): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const socket = connect(() => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: ${host}`,
        ...headers.map(([k, v]) => `${k}: ${v}`),
        ...(headers.length ? [] : ['Connection: close']),
      ];
      socket.write(lines.join('\r\n') + '\r\n\r\n');
    });
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => finish({ kind: 'stall', ms: performance.now() - started }), timeoutMs);
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      const res = parseResponse(Buffer.concat(chunks), false);
      if (res && (res.status === 101 || res.body.length >= Number(res.headers['content-length'] ?? Infinity)))
        finish({ kind: 'answer', res, ms: performance.now() - started });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const res = parseResponse(Buffer.concat(chunks), false);
      finish(
        res
          ? { kind: 'answer', res, ms: performance.now() - started }
          : { kind: 'no-answer', ms: performance.now() - started, error: 'closed without an answer' },
      );
    });
  });
}

/** The rich account's concurrency slots in use, as GET /api/v1/stt/realtime/info tells them. */
export async function slotsInUse(svc: HostileService): Promise<number> {
  const o = await sendRaw(
    svc.port,
    { method: 'GET', path: '/api/v1/stt/realtime/info', headers: [['X-API-Key', svc.creds.rich]], body: Buffer.alloc(0) },
    10_000,
  );
  assert.equal(o.kind, 'answer');
  return (JSON.parse((o as { res: { body: Buffer } }).res.body.toString()) as { limits: { concurrent_in_use: number } }).limits
    .concurrent_in_use;
}

/** A live stream as the hostile suites hold it: its socket, the JSON messages it got, its close. */
export interface LiveSession {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
}

/** WebSocket frames no client library sends: each must end the stream cleanly, never the process. */
export const MALFORMED_FRAMES: Array<[string, Buffer]> = [
  ['unmasked client frame', Buffer.from([0x81, 0x02, 0x68, 0x69])],
  ['reserved opcode 0x3', Buffer.from([0x83, 0x80, 1, 2, 3, 4])],
  ['RSV1 without an extension', Buffer.from([0xc1, 0x80, 1, 2, 3, 4])],
  ['ping of 126 bytes', Buffer.concat([Buffer.from([0x89, 0xfe, 0x00, 0x7e, 1, 2, 3, 4]), Buffer.alloc(126)])],
  ['fragmented ping', Buffer.from([0x09, 0x80, 1, 2, 3, 4])],
  ['continuation without a start', Buffer.from([0x80, 0x80, 1, 2, 3, 4])],
  ['64-bit length of 2^63', Buffer.from([0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4])],
  ['close frame with a 1-byte payload', Buffer.from([0x88, 0x81, 1, 2, 3, 4, 0x41])],
  ['close frame with code 999', Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe7])],
];

/**
 * The frame-level cases every live socket answers alike (the `ws` library under each protocol): a
 * text or binary frame over the 1 MiB limit closes with 1009, a text frame that is not UTF-8 with
 * 1007, and each malformed frame ends the stream with a protocol close. `ready` waits until the
 * stream is under way (the native socket's Metadata); `check` is the suite's own check of a close.
 */
export function frameLevelCases(o: {
  open: () => Promise<LiveSession>;
  measured: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
  check: (s: LiveSession, close: { code: number } | null, allowed: number[]) => void;
  ready?: (s: LiveSession) => Promise<void>;
}): void {
  for (const [name, frame] of [
    ['text', 'x'.repeat(2 * 1024 * 1024)],
    ['binary', Buffer.alloc(2 * 1024 * 1024)],
  ] as const) {
    test(`a ${name} frame over the 1 MiB frame limit closes with 1009`, async () => {
      await o.measured(`huge ${name} frame`, async () => {
        const s = await o.open();
        s.ws.send(frame);
        o.check(s, await s.closed, [1009]);
      });
    });
  }
  test('a text frame that is not UTF-8 closes with 1007', async () => {
    await o.measured('invalid UTF-8', async () => {
      const s = await o.open();
      s.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
      o.check(s, await s.closed, [1007]);
    });
  });
  for (const [name, bytes] of MALFORMED_FRAMES) {
    test(`malformed frame: ${name} closes the stream cleanly`, async () => {
      await o.measured(name, async () => {
        const s = await o.open();
        await o.ready?.(s);
        (s.ws as unknown as { _socket: Duplex })._socket.write(bytes);
        const close = await Promise.race([s.closed, sleep(10_000).then(() => null)]);
        if (!close) s.ws.terminate();
        assert.ok(close, 'the server kept the stream open after a malformed frame');
        o.check(s, close, [1002, 1006, 1007, 1009]);
      });
    });
  }
}
