// WebSocket endpoints other than the native real-time stream (the Deepgram dialect's /v1/listen and
// /v1/speak), by path. One table serves both ports: the API port (HTTP, where Deepgram's SDK
// connects when pointed at the API's base URL) and the real-time TLS port (wss, like the native
// stream). A handler owns the socket from the moment it is called: it upgrades or refuses it.

import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, errorBody } from '../errors.js';
import { newRequestId } from './request-id.js';
import { logLevelOf, toApiError } from '../faults/translate.js';

export interface UpgradeContext {
  requestId: string;
  /** Which listener the handshake reached. */
  port: 'api' | 'realtime';
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, ctx: UpgradeContext) => Promise<void>;

export class WsRoutes {
  private readonly handlers = new Map<string, UpgradeHandler>();
  private readonly shutdowns = new Map<string, () => Promise<void>>();

  /**
   * Registers (or, when an app is built again on the same services, replaces) a path's handler;
   * `shutdown` ends the path's open sockets gracefully (see shutdown()).
   */
  add(path: string, handler: UpgradeHandler, shutdown?: () => Promise<void>): void {
    this.handlers.set(path, handler);
    if (shutdown) this.shutdowns.set(path, shutdown);
    else this.shutdowns.delete(path);
  }

  /**
   * Ends every open socket of every path (each gets its protocol's last messages and close frame).
   * Called when either listener closes: an upgraded socket is no longer an HTTP connection, so a
   * server would otherwise wait for its clients to leave.
   */
  async shutdown(): Promise<void> {
    await Promise.all([...this.shutdowns.values()].map((s) => s().catch(() => undefined)));
  }

  /** The handler of a request's path (query ignored), or undefined. */
  match(url: string | undefined): UpgradeHandler | undefined {
    const raw = url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    // "/v1/listen/" is the same endpoint as "/v1/listen" (Deepgram's SDK may build either).
    return this.handlers.get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);
  }

  get paths(): string[] {
    return [...this.handlers.keys()];
  }
}

/**
 * Serves `routes` on the API port's HTTP server: a handshake for a registered path goes to its
 * handler, any other is answered 404 with the interface's error body (without a listener Node
 * would just drop the socket).
 */
export function serveWsRoutes(server: Server, routes: WsRoutes, log: FastifyBaseLogger): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = newRequestId();
    socket.on('error', () => socket.destroy());
    const handler = routes.match(req.url);
    if (!handler) {
      const where = routes.paths.length > 0 ? ` WebSockets here: ${routes.paths.join(', ')}.` : '';
      return refuseUpgrade(socket, new ApiError('NOT_FOUND', { message: `No WebSocket at this path.${where}` }), requestId);
    }
    handler(req, socket, head, { requestId, port: 'api' }).catch((err: unknown) => {
      const apiErr = toApiError(err);
      const level = logLevelOf(apiErr);
      if (level !== 'info') log[level]({ err, code: apiErr.code }, 'WebSocket upgrade failed');
      refuseUpgrade(socket, apiErr, requestId);
    });
  });
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The HTTP status line's reason phrase for the statuses an upgrade can be refused with. */
export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}

/**
 * Answers an upgrade request with a plain HTTP error, then closes: the interface's error body and
 * headers, or a dialect's (`dialect`: its body, and headers added after X-Request-ID). Every socket
 * edge refuses through this one function.
 */
export function refuseUpgrade(
  socket: Duplex,
  err: ApiError,
  requestId: string,
  dialect: { body?: unknown; headers?: string[] } = {},
): void {
  const body = JSON.stringify(dialect.body ?? errorBody(err, requestId));
  const headers = [
    `HTTP/1.1 ${err.status} ${reasonPhrase(err.status)}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-ID: ${requestId}`,
    ...(dialect.headers ?? []),
    ...(err.retryAfter !== undefined ? [`Retry-After: ${Math.ceil(err.retryAfter)}`] : []),
    'Connection: close',
  ];
  if (socket.writable) socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
  else socket.destroy();
}
