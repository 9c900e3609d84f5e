// Answers for what never becomes a Fastify request: bytes Node's HTTP parser rejects (an unknown
// method, a malformed request line or header, headers over the limit, a request that took too
// long), CONNECT, which Node hands to a 'connect' listener or drops, and an Expect header other
// than 100-continue, which Node answers with a bare 417 of its own. They get the same error
// body and X-Request-ID as every other answer, written straight to the socket, and the
// connection is closed, since what follows on it cannot be framed.

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, errorBody } from '../errors.js';
import { newRequestId } from '../edge/request-id.js';

/** A whole HTTP/1.1 response carrying `err` in the error body, closing the connection. */
export function rawErrorResponse(err: ApiError, requestId: string = newRequestId()): string {
  const body = JSON.stringify(errorBody(err, requestId));
  const retry = err.retryAfter === undefined ? '' : `Retry-After: ${Math.ceil(err.retryAfter)}\r\n`;
  return (
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-ID: ${requestId}\r\n${retry}Connection: close\r\n\r\n${body}`
  );
}

function writeAndClose(socket: Duplex, response: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // end() flushes the answer before the FIN; the socket is then let go whatever the client does.
  socket.end(response, () => socket.destroy());
}

/** What Node's parser error (or timeout) means for the client, in the service's codes. */
export function clientErrorToApiError(err: NodeJS.ErrnoException & { reason?: string }): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('REQUEST_TOO_LARGE', {
        message: 'The request headers are too large.',
        resolution: 'Send fewer or shorter headers (at most 16 KB in all).',
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('INVALID_REQUEST', {
        message: 'The request was not received in time.',
        resolution: 'Send the whole request without long pauses.',
      });
    case 'HPE_INVALID_METHOD':
      return new ApiError('INVALID_REQUEST', {
        message: 'The HTTP method is not supported.',
        resolution: 'Use the method the API reference at /docs gives for the endpoint.',
      });
    default:
      // llhttp's reason is a fixed phrase ("Invalid header value char"), never the client's bytes.
      return new ApiError('INVALID_REQUEST', {
        message: `The request is not valid HTTP/1.1${err.reason ? `: ${err.reason}` : ''}.`,
        resolution: 'Send a well-formed HTTP/1.1 request.',
      });
  }
}

/** Fastify's clientErrorHandler: Node's 'clientError' answered with the error body. */
export function clientErrorHandler(
  this: { log: FastifyBaseLogger },
  err: NodeJS.ErrnoException & { reason?: string },
  socket: Socket,
): void {
  // A reset connection has no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const apiErr = clientErrorToApiError(err);
  const requestId = newRequestId();
  this.log.debug({ code: err.code, reqId: requestId }, apiErr.message);
  const answer = () => writeAndClose(socket, rawErrorResponse(apiErr, requestId));
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    // A pipelining client sent the bad bytes right after a complete, good request that is still
    // being answered: that answer goes out whole first, then this one (Node's default cuts it off).
    if (inFlight.req.complete) {
      inFlight.once('finish', answer);
      inFlight.once('close', () => {
        if (!inFlight.writableFinished) socket.destroy();
      });
      return;
    }
    // The request in flight is the broken one (its body cannot be framed). Once its own answer
    // has begun, a second status line would corrupt it: Node's rule, close instead.
    if (inFlight.headersSent) {
      socket.destroy();
      return;
    }
  }
  answer();
}

/** CONNECT names no endpoint of this service (it is no proxy): 404 in the error body. */
export function refuseConnect(server: Server): void {
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const target = (req.url ?? '').slice(0, 200);
    writeAndClose(socket, rawErrorResponse(new ApiError('NOT_FOUND', { message: `No endpoint CONNECT ${target}.` })));
  });
}

/**
 * An Expect header other than 100-continue: Node answers a bare 417 unless a 'checkExpectation'
 * listener does. 417 is no status of the error table, and the client's fault is a header the
 * service does not take: 400 INVALID_REQUEST. The request's body (if the client sends it anyway)
 * is read and dropped by Node, so the connection stays usable.
 */
export function refuseUnknownExpectation(server: Server): void {
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const requestId = newRequestId();
    const err = new ApiError('INVALID_REQUEST', {
      message: 'The Expect header is not supported: the only expectation this service meets is 100-continue.',
      resolution: 'Send the request without the Expect header, or with Expect: 100-continue.',
      details: { field: 'Expect', provided: String(req.headers.expect ?? '').slice(0, 200) },
    });
    const body = JSON.stringify(errorBody(err, requestId));
    res.writeHead(err.status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Request-ID': requestId,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}
