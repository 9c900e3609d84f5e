// What the hostile suites of the live sockets share (hostile-realtime.test.ts: the native socket
// over TLS; hostile-deepgram-live.test.ts: Deepgram's /v1/listen on the API port): the event-loop
// guard around every case, an upgrade request written by hand with its whole answer parsed, the
// WebSocket handshake headers, and the account's slots in use.

import assert from 'node:assert/strict';
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
