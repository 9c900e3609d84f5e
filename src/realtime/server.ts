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
import { toApiError } from '../edge/errors.js';
import { parseRealtimeParams } from './params.js';
import type { RealtimeSession } from './session.js';
import { NativeOutput } from './native-output.js';
import { acceptLiveStream, transportOf } from './live-upgrade.js';
import { loadTls } from './tls.js';
import { opusSupported } from './opus-decoder.js';

export const REALTIME_PATH = '/api/v1/stt/realtime/stream';

export interface RealtimeServerOptions {
  /** No audio or KeepAlive for this long closes the stream (default: REALTIME_IDLE_TIMEOUT_SECONDS, 10 s). */
  idleTimeoutMs?: number;
  /** Overrides config.realtimeMaxSessionSeconds (tests). */
  maxSessionSeconds?: number;
  /**
   * How long an upgrade waits for a free recognizer (each live stream keeps one for its whole
   * life) before it is refused with 503 SERVICE_OVERLOADED; default 3 s.
   */
  recognizerWaitMs?: number;
}

export class RealtimeServer {
  private readonly https: https.Server;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  private readonly sessions = new Set<RealtimeSession>();
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
      const body = errorBody(new ApiError('NOT_FOUND', { message: `This port serves the real-time WebSocket at ${REALTIME_PATH}.` }), requestId);
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId }).end(JSON.stringify(body));
      void req;
    });
    this.https.on('upgrade', (req, socket, head) => {
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
    if (url.pathname !== REALTIME_PATH) return refuse(socket, new ApiError('NOT_FOUND', { message: `No WebSocket at ${url.pathname}; use ${REALTIME_PATH}.` }), requestId);
    // A handshake ws would refuse is refused here, before a slot, a hold and a recognizer are taken.
    const handshake = handshakeProblem(req);
    if (handshake) return refuse(socket, new ApiError('INVALID_REQUEST', { message: handshake }), requestId);
    const { services } = this;
    try {
      const auth = await services.authenticator.authenticate(url.searchParams.get('api_key'));
      services.stt.checkAccess(auth, 'live');
      const params = parseRealtimeParams(url.searchParams);
      if (params.encoding === 'opus' && !(await opusSupported())) {
        throw new ApiError('INVALID_FORMAT', { message: 'This server has no Opus decoder (ffmpeg); send linear16.', details: { field: 'encoding', provided: 'opus', suggestions: ['linear16'] } });
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
        recognizerWaitMs: this.opts.recognizerWaitMs ?? 3000,
        idleTimeoutMs,
        maxSessionSeconds: this.opts.maxSessionSeconds ?? services.config.realtimeMaxSessionSeconds,
        output: (ws) => new NativeOutput(transportOf(ws), idleTimeoutMs),
        wire: (ws, session) => ws.on('message', (data, isBinary) => (isBinary ? session.onAudio(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer)) : session.onText(data.toString()))),
        track: (session) => this.sessions.add(session),
        ended: (session) => this.sessions.delete(session),
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
    await Promise.all([...[...this.sessions].map((s) => s.end('shutdown')), this.services.wsRoutes.shutdown()]);
    // Give the close handshakes a moment so clients see 1001 rather than a dropped connection.
    const deadline = Date.now() + 2000;
    while ([...this.wss.clients].some((ws) => ws.readyState !== ws.CLOSED) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.https.close(() => resolve()));
    this.https.closeAllConnections?.();
  }
}

const WS_KEY = /^[+/0-9A-Za-z]{22}==$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why ws would refuse this handshake (RFC 6455 4.2.1, as ws checks it), or null. */
export function handshakeProblem(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return 'The WebSocket handshake is a GET request.';
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return 'The handshake needs the header Upgrade: websocket.';
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !WS_KEY.test(key)) return 'Missing or invalid Sec-WebSocket-Key header.';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Sec-WebSocket-Version must be 13.';
  const protocols = req.headers['sec-websocket-protocol'];
  if (protocols !== undefined) {
    const list = protocols.split(',').map((p) => p.trim());
    if (list.some((p) => !TOKEN.test(p)) || new Set(list).size !== list.length) return 'Invalid Sec-WebSocket-Protocol header.';
  }
  return null;
}
