// The real-time WebSocket server: wss://HOST:REALTIME_PORT/api/v1/stt/realtime/stream (ws library on
// an https server), an edge like the HTTP routes. Everything that can be refused is refused before
// the upgrade, with the HTTP status and error body of docs/interface.md: key (401), feature/model
// (403), parameters (400), credits (402), concurrency (429). The STT service admits the stream
// (src/stt/service.ts: the same language, engine, admission and price rules as a batch request);
// each open stream holds one of the account's concurrency slots.

import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { Services } from '../services.js';
import { ApiError, errorBody } from '../errors.js';
import { refuseUpgrade as refuse } from '../edge/ws-routes.js';
import { newRequestId } from '../edge/request-id.js';
import { toApiError } from '../faults/translate.js';
import { handshakeProblem } from '../edge/ws-handshake.js';
import { parseRealtimeParams, parseTurnQuery } from './params.js';
import { NativeOutput } from './native-output.js';
import { acceptLiveStream, closeSockets, readFrames, transportOf } from '../edge/live-upgrade.js';
import { LiveSessions } from '../edge/live-sessions.js';
import { loadTls } from './tls.js';
import { opusSupported } from '../stt/live/opus-decoder.js';

export const REALTIME_PATH = '/api/v1/stt/realtime/stream';

export interface RealtimeServerOptions {
  /** No audio or KeepAlive for this long closes the stream (default: REALTIME_IDLE_TIMEOUT_SECONDS, 10 s). */
  idleTimeoutMs?: number;
  /** Overrides config.realtimeMaxSessionSeconds (tests). */
  maxSessionSeconds?: number;
  /**
   * How long an upgrade waits for a free recognizer before it is refused with 503
   * SERVICE_OVERLOADED, and resumed audio for one after the stream gave its own back (then the
   * stream ends with 1013); default 3 s.
   */
  recognizerWaitMs?: number;
}

export class RealtimeServer {
  private readonly https: https.Server;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  private readonly sessions = new LiveSessions();
  readonly selfSigned: boolean;
  readonly cert: string;

  constructor(
    private readonly services: Services,
    private readonly opts: RealtimeServerOptions = {},
  ) {
    const tls = loadTls(services.config, services.log);
    this.selfSigned = tls.selfSigned;
    this.cert = tls.cert;
    this.https = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      const requestId = newRequestId();
      const body = errorBody(
        new ApiError('NOT_FOUND', { message: `This port serves the real-time WebSocket at ${REALTIME_PATH}.` }),
        requestId,
      );
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId }).end(JSON.stringify(body));
      void req;
    });
    this.https.on('upgrade', (req, socket, head) => {
      // Node hands an upgraded socket over without its error listener: a reset during the
      // (asynchronous) admission would otherwise be an uncaught 'error' that ends the process.
      socket.on('error', () => socket.destroy());
      this.upgrade(req, socket, head).catch((err: unknown) => {
        services.log.error({ err }, 'real-time upgrade failed');
        refuse(socket, new ApiError('INTERNAL_ERROR'), newRequestId());
      });
    });
  }

  get activeStreams(): number {
    return this.sessions.size;
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.https.once('error', reject);
      this.https.listen(port, host, () => resolve());
    });
    return (this.https.address() as AddressInfo).port;
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const requestId = newRequestId();
    const url = new URL(req.url ?? '/', 'https://localhost');
    // The dialects' sockets (Deepgram's /v1/listen, /v1/speak) are served on this port too.
    const other = url.pathname === REALTIME_PATH ? undefined : this.services.wsRoutes.match(req.url);
    if (other) return other(req, socket, head, { requestId, port: 'realtime' });
    if (url.pathname !== REALTIME_PATH)
      return refuse(socket, new ApiError('NOT_FOUND', { message: `No WebSocket at ${url.pathname}; use ${REALTIME_PATH}.` }), requestId);
    // A handshake ws would refuse is refused here, before a slot, a hold and a recognizer are taken.
    const handshake = handshakeProblem(req);
    if (handshake) return refuse(socket, new ApiError('INVALID_REQUEST', { message: handshake }), requestId);
    const { services } = this;
    try {
      const auth = await services.authenticator.authenticateLive(url.searchParams.get('api_key'));
      services.stt.checkAccess(auth, 'live');
      const params = parseRealtimeParams(url.searchParams);
      const turns = parseTurnQuery(url.searchParams);
      // With turns, utterances end with turns, not with endpointing's silence.
      if (turns) params.endpointing = 0;
      if (params.encoding === 'opus' && !(await opusSupported())) {
        throw new ApiError('INVALID_FORMAT', {
          message: 'This server has no Opus decoder (ffmpeg); send linear16.',
          details: { field: 'encoding', provided: 'opus', suggestions: ['linear16'] },
        });
      }
      // Language, engine, admission (windows and slot), the first block of credits, a recognizer.
      const idleTimeoutMs = this.opts.idleTimeoutMs ?? services.config.realtimeIdleTimeoutSeconds * 1000;
      await acceptLiveStream({
        services,
        wss: this.wss,
        req,
        socket,
        head,
        requestId,
        auth,
        params,
        turns: turns ?? undefined,
        recognizerWaitMs: this.opts.recognizerWaitMs ?? 3000,
        recognizerIdleMs: services.config.realtimeRecognizerIdleSeconds * 1000,
        idleTimeoutMs,
        maxSessionSeconds: this.opts.maxSessionSeconds ?? services.config.realtimeMaxSessionSeconds,
        output: (ws) => new NativeOutput(transportOf(ws), idleTimeoutMs),
        wire: (ws, session) =>
          readFrames(ws, session, (data, isBinary) => (isBinary ? session.onAudio(data) : session.onText(data.toString()))),
        track: this.sessions.track,
        ended: this.sessions.ended,
      });
    } catch (err) {
      refuse(socket, toApiError(err), requestId);
    }
  }

  /**
   * Graceful shutdown: every stream gets its final result and summary, then the server closes.
   * The dialects' streams on this port end too (an upgraded socket would hold the port open).
   */
  async close(): Promise<void> {
    await Promise.all([this.sessions.shutdown(), this.services.wsRoutes.shutdown()]);
    await closeSockets(this.wss.clients);
    await new Promise<void>((resolve) => this.https.close(() => resolve()));
    this.https.closeAllConnections?.();
  }
}
