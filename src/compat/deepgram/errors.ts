// Errors in Deepgram's shape: {"err_code", "err_msg", "request_id"} (the "legacy" error body its
// SDK parses into DeepgramError.body), with the status, Retry-After and X-Request-ID the native API
// gives for the same failure. What failed is decided by the one translation every edge shares
// (src/http/error-handler.ts over src/faults/translate.ts); this file only renders it, so the dialects
// cannot disagree on a status (docs/compatibility.md, "Deepgram").

import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError, ErrorCategory } from '../../errors.js';
import { toApiError } from '../../http/error-handler.js';
import { logLevelOf } from '../../faults/translate.js';
import { refuseUpgrade } from '../../edge/ws-routes.js';

/**
 * Deepgram's err_code for each of Parla's error categories, where Deepgram documents one
 * (INVALID_AUTH, ASR_PAYMENT_REQUIRED, TOO_MANY_REQUESTS, "Bad Request"); Parla's own code
 * travels alongside in `parla_code` so a client can still tell e.g. a bad language from a bad model.
 */
const CODES: Record<ErrorCategory, string> = {
  authentication: 'INVALID_AUTH',
  permission: 'INSUFFICIENT_PERMISSIONS',
  validation: 'Bad Request',
  model: 'Bad Request',
  credit: 'ASR_PAYMENT_REQUIRED',
  rate_limit: 'TOO_MANY_REQUESTS',
  not_found: 'NOT_FOUND',
  server: 'INTERNAL_SERVER_ERROR',
};

export interface DeepgramErrorBody {
  err_code: string;
  err_msg: string;
  request_id: string;
  /** Parla's error code (docs/errors.md), for clients that want the precise reason. */
  parla_code: string;
}

export function deepgramErrorBody(err: ApiError, requestId: string, service: 'listen' | 'speak' = 'listen'): DeepgramErrorBody {
  let code = CODES[err.category] ?? 'INTERNAL_SERVER_ERROR';
  if (err.category === 'credit' && service === 'speak') code = 'PAYMENT_REQUIRED';
  return { err_code: code, err_msg: err.message, request_id: requestId, parla_code: err.code };
}

/** Sends `err` (anything a Deepgram route can end with) in Deepgram's shape. */
export function sendDeepgramError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  service: 'listen' | 'speak' = 'listen',
): FastifyReply {
  const apiErr = toApiError(err, request);
  const level = logLevelOf(apiErr);
  if (level === 'info') request.log.info({ code: apiErr.code }, apiErr.message);
  else request.log[level]({ err, code: apiErr.code }, 'request failed');
  reply.header('X-Request-ID', request.id);
  // Deepgram answers every request with its id in dg-request-id; its SDK reads that header.
  reply.header('dg-request-id', request.id);
  if (apiErr.retryAfter !== undefined) reply.header('Retry-After', String(Math.ceil(apiErr.retryAfter)));
  return reply
    .code(apiErr.status)
    .type('application/json; charset=utf-8')
    .send(deepgramErrorBody(apiErr, request.id, service));
}

/** Answers a WebSocket upgrade request with a plain HTTP error in Deepgram's shape, then closes. */
export function refuseDeepgramUpgrade(socket: Duplex, err: ApiError, requestId: string, service: 'listen' | 'speak' = 'listen'): void {
  refuseUpgrade(socket, err, requestId, { body: deepgramErrorBody(err, requestId, service), headers: [`dg-request-id: ${requestId}`] });
}
