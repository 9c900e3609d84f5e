// The second half of every live-stream upgrade, whatever its protocol (the native socket,
// src/realtime/server.ts; Deepgram's /v1/listen, src/compat/deepgram/listen-live.ts): once the
// edge has authenticated the key and parsed its parameters, the STT service admits the stream
// (language, engine, windows and slot, the first credit hold, a recognizer: the session gives it
// back while no audio flows and takes one again when audio resumes), the socket is
// upgraded, and one RealtimeSession runs it with the protocol's renderer. A refusal here comes back
// as the thrown error for the edge to render in its own error body.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { SttService } from '../stt/service.js';
import type { AuthContext } from '../accounts/auth-context.js';
import { ApiError } from '../errors.js';
import { LIVE_SLOT_RENEW_MS } from '../stt/service.js';
import type { RealtimeParams } from '../stt/live/params.js';
import { RealtimeSession } from '../stt/live/session.js';
import type { SessionOutput, Transport } from '../stt/live/session-output.js';
import type { TurnSettings } from '../stt/live/turns.js';

/** Audio prepaid per hold block; the hold grows block by block while the stream runs. */
export const HOLD_BLOCK_SECONDS = 60;

export interface LiveUpgrade {
  /** What the upgrade uses of the services (not the whole object: services.ts stands above edge/). */
  services: { stt: Pick<SttService, 'openLive'>; metrics: { realtimeStreams: { inc(): void; dec(): void } } };
  wss: WebSocketServer;
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  requestId: string;
  auth: AuthContext;
  params: RealtimeParams;
  recognizerWaitMs: number;
  /** No audio for this long gives the stream's recognizer back (REALTIME_RECOGNIZER_IDLE_SECONDS). */
  recognizerIdleMs: number;
  idleTimeoutMs: number;
  maxSessionSeconds: number;
  /** Turn-taking for the protocols that render turns (Deepgram Flux); the object may change while the stream runs (Configure). */
  turns?: TurnSettings;
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
    // A recognizer only while audio flows, from the first frame on (decision #59).
    attachOnAudio: true,
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
    live.slot.keepAlive(LIVE_SLOT_RENEW_MS);
    const session: RealtimeSession = new RealtimeSession(u.output(ws), {
      requestId: u.requestId,
      params,
      language: live.language,
      engine: live.engine,
      stream: live.stream,
      reopen: live.reopen,
      recognizerIdleMs: u.recognizerIdleMs,
      credits: live.credits,
      idleTimeoutMs: u.idleTimeoutMs,
      maxSessionSeconds: u.maxSessionSeconds,
      turns: u.turns,
      onEnd: () => {
        services.metrics.realtimeStreams.dec();
        u.ended(session);
        void live.slot.release();
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

/**
 * Reads a socket's frames into a session: `handle` gets each frame as a Buffer. A frame can arrive
 * after the session has ended (a client still sending while the close handshake is under way) and
 * a listener that throws would be an uncaught exception that ends the whole process (issue 30):
 * a failure here ends this one stream instead.
 */
export function readFrames(ws: WebSocket, session: RealtimeSession, handle: (data: Buffer, isBinary: boolean) => void): void {
  ws.on('message', (data, isBinary) => {
    try {
      handle(Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data), isBinary);
    } catch {
      void session.end('internal_error').catch(() => undefined);
    }
  });
}

/** A session's way out over a `ws` socket (both live protocols: native and Deepgram's). */
export function transportOf(ws: WebSocket): Transport {
  return {
    send: (m: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    },
    close: (code: number, reason: string) => ws.close(code, reason),
    pause: () => ws.pause(),
    resume: () => ws.resume(),
  };
}

/**
 * After the sessions were told to end: give the sockets' close handshakes up to `graceMs`, so
 * clients see 1001 rather than a dropped connection, then drop what is still open.
 */
export async function closeSockets(sockets: Iterable<WebSocket>, graceMs = 2000): Promise<void> {
  const list = [...sockets];
  const deadline = Date.now() + graceMs;
  while (list.some((ws) => ws.readyState !== ws.CLOSED) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const ws of list) ws.terminate();
}
