// The second half of every live-stream upgrade, whatever its protocol (the native socket,
// src/realtime/server.ts; Deepgram's /v1/listen, src/compat/deepgram/listen-live.ts): once the
// edge has authenticated the key and parsed its parameters, the STT service admits the stream
// (language, engine, windows and slot, the first credit hold, a recognizer), the socket is
// upgraded, and one RealtimeSession runs it with the protocol's renderer. A refusal here comes back
// as the thrown error for the edge to render in its own error body.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Services } from '../services.js';
import type { AuthContext } from '../accounts/auth-context.js';
import { ApiError } from '../errors.js';
import { LIVE_SLOT_RENEW_MS } from '../stt/service.js';
import type { RealtimeParams } from './params.js';
import { RealtimeSession } from './session.js';
import type { SessionOutput } from './session-output.js';

/** Audio prepaid per hold block; the hold grows block by block while the stream runs. */
export const HOLD_BLOCK_SECONDS = 60;

export interface LiveUpgrade {
  services: Services;
  wss: WebSocketServer;
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  requestId: string;
  auth: AuthContext;
  params: RealtimeParams;
  recognizerWaitMs: number;
  idleTimeoutMs: number;
  maxSessionSeconds: number;
  /** The protocol's renderer for the upgraded socket. */
  output(ws: WebSocket): SessionOutput;
  /** Wires the socket's frames to the session (each protocol reads its client's frames). */
  wire(ws: WebSocket, session: RealtimeSession): void;
  /** The open session, for shutdown and counting; `ended` runs once when it is over. */
  track(session: RealtimeSession, ws: WebSocket): void;
  ended(session: RealtimeSession): void;
}

/**
 * Admits and upgrades; resolves once the socket is upgraded (or given back). Throws what the
 * service refused with (ApiError & co.), before anything was upgraded.
 */
export async function acceptLiveStream(u: LiveUpgrade): Promise<void> {
  const { services, params, socket } = u;
  const live = await services.stt.openLive(u.auth, {
    requestId: u.requestId,
    model: params.model,
    language: params.language,
    keywords: params.keywords,
    recognizerWaitMs: u.recognizerWaitMs,
    holdBlockSeconds: HOLD_BLOCK_SECONDS,
  });
  if (socket.destroyed || !socket.writable) {
    // The client gave up while we waited: nothing was streamed, nothing is billed.
    await live.abandon();
    throw new ApiError('INVALID_REQUEST', { message: 'The client closed the connection before the upgrade.' });
  }
  // Should ws still refuse the handshake, its callback never runs: give everything back when
  // the socket closes without having been upgraded.
  let upgraded = false;
  const abandon = () => {
    if (!upgraded) void live.abandon().catch(() => undefined);
  };
  socket.once('close', abandon);
  u.wss.handleUpgrade(u.req, socket, u.head, (ws) => {
    upgraded = true;
    socket.off('close', abandon);
    const renew = setInterval(live.renewSlot, LIVE_SLOT_RENEW_MS);
    renew.unref();
    const session: RealtimeSession = new RealtimeSession(u.output(ws), {
      requestId: u.requestId,
      params,
      language: live.language,
      engine: live.engine,
      stream: live.stream,
      work: live.work,
      heldSeconds: live.heldSeconds,
      creditsPerSecond: live.creditsPerSecond,
      idleTimeoutMs: u.idleTimeoutMs,
      maxSessionSeconds: u.maxSessionSeconds,
      holdBlockSeconds: HOLD_BLOCK_SECONDS,
      onEnd: () => {
        clearInterval(renew);
        services.metrics.realtimeStreams.dec();
        u.ended(session);
        void live.releaseSlot();
      },
    });
    services.metrics.realtimeStreams.inc();
    u.track(session, ws);
    u.wire(ws, session);
    ws.on('close', () => void session.end('client_closed', { clientGone: true }));
    ws.on('error', () => void session.end('client_closed', { clientGone: true }));
    void session.start();
  });
}

/** A session's way out over a `ws` socket (both live protocols: native and Deepgram's). */
export function transportOf(ws: WebSocket) {
  return {
    send: (m: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    },
    close: (code: number, reason: string) => ws.close(code, reason),
    pause: () => ws.pause(),
    resume: () => ws.resume(),
  };
}
