// Errors in OpenAI's shape: {"error": {"message", "type", "param", "code"}}, with the status,
// Retry-After and X-Request-ID the native API would give for the same failure. What failed is
// decided by the one translation every edge shares (src/http/error-handler.ts over
// src/faults/translate.ts); this file only renders it, so the two dialects cannot disagree on a status.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError, ErrorCategory } from '../../errors.js';
import { toApiError } from '../../http/error-handler.js';
import { logLevelOf } from '../../faults/translate.js';

/** OpenAI's error `type` for each of Parla's error categories. */
const TYPES: Record<ErrorCategory, string> = {
  authentication: 'authentication_error',
  permission: 'permission_error',
  validation: 'invalid_request_error',
  model: 'invalid_request_error',
  credit: 'insufficient_quota',
  rate_limit: 'rate_limit_error',
  not_found: 'not_found_error',
  server: 'server_error',
};

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

export function openAiErrorBody(err: ApiError): OpenAiErrorBody {
  const field = err.details?.field;
  return {
    error: {
      message: err.message,
      type: TYPES[err.category] ?? 'server_error',
      param: typeof field === 'string' && field !== '' ? field : null,
      // Parla's own code, lower-cased as OpenAI's codes are (invalid_api_key, insufficient_credits...).
      code: err.code === 'AUTH_INVALID_API_KEY' ? 'invalid_api_key' : err.code.toLowerCase(),
    },
  };
}

/** Sends `err` (anything a /v1 request can end with) in OpenAI's shape. */
export function sendOpenAiError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const apiErr = toApiError(err, request);
  const level = logLevelOf(apiErr);
  if (level === 'info') request.log.info({ code: apiErr.code }, apiErr.message);
  else request.log[level]({ err, code: apiErr.code }, 'request failed');
  reply.header('X-Request-ID', request.id);
  if (apiErr.retryAfter !== undefined) reply.header('Retry-After', String(Math.ceil(apiErr.retryAfter)));
  return reply.code(apiErr.status).type('application/json; charset=utf-8').send(openAiErrorBody(apiErr));
}
