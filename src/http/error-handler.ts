// Maps everything that can go wrong to the error body of docs/interface.md with the statuses of
// decisions #25: ApiError as is, schema validation to the INVALID_* code of the offending field,
// Fastify's own body/content-type errors to 400/413, anything else to 500 without internals.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, errorBody, type ErrorCode } from '../errors.js';
import { logLevelOf, serviceErrorToApiError } from '../faults/translate.js';
import { sessionCookie } from './session-cookie.js';
import { table } from '../domain/lookup.js';

/** The INVALID_* code for a request field, when a field has a code of its own. */
const FIELD_CODES: Record<string, ErrorCode> = table({
  voice: 'INVALID_VOICE',
  language: 'INVALID_LANGUAGE',
  model: 'INVALID_MODEL',
  speed: 'INVALID_SPEED',
  pitch: 'INVALID_PITCH',
  format: 'INVALID_FORMAT',
  response_format: 'INVALID_FORMAT',
  sample_rate: 'INVALID_SAMPLE_RATE',
});

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldOf(e: AjvError): string {
  if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') return e.params.missingProperty;
  const parts = e.instancePath.split('/').filter(Boolean);
  return parts[0] ?? '';
}

/** The most of an offending value an error body repeats back. */
export const MAX_PROVIDED_CHARS = 200;

/** Client text repeated in a message (a path, a Content-Type), cut to MAX_PROVIDED_CHARS. */
function clip(text: string): string {
  return text.length > MAX_PROVIDED_CHARS ? `${text.slice(0, MAX_PROVIDED_CHARS)}...` : text;
}

/** The offending value as text for `details.provided`, cut to MAX_PROVIDED_CHARS. */
function provided(request: FastifyRequest, context: string | undefined, field: string): string | undefined {
  const source = (context === 'querystring' ? request.query : context === 'params' ? request.params : request.body) as unknown;
  if (!field || typeof source !== 'object' || source === null) return undefined;
  const v = (source as Record<string, unknown>)[field];
  if (v === undefined) return undefined;
  let text: string;
  if (typeof v === 'string') {
    text = v;
  } else {
    // The JSON parser caps nesting, but an error path must not be able to fail on any value.
    try {
      text = JSON.stringify(v) ?? String(v);
    } catch {
      text = Array.isArray(v) ? '[array]' : `[${typeof v}]`;
    }
  }
  return clip(text);
}

export function validationToApiError(request: FastifyRequest, errors: AjvError[], context: string | undefined): ApiError {
  const first = errors.find((e) => e.keyword !== 'if') ?? errors[0];
  if (!first) return new ApiError('INVALID_PARAMETER');
  const field = fieldOf(first);
  const value = provided(request, context, field);
  const details = { field, ...(value === undefined ? {} : { provided: value }) };
  if (context === 'body' && field === '' && first.keyword === 'type') {
    return new ApiError('INVALID_REQUEST', { message: 'The request body must be a JSON object.', details });
  }
  if (field === 'text') {
    if (first.keyword === 'required' || first.keyword === 'minLength') return new ApiError('MISSING_TEXT', { details });
    if (first.keyword === 'maxLength') {
      return new ApiError('TEXT_TOO_LONG', {
        message: `text must be at most ${String(first.params.limit)} characters.`,
        details: { field, limit: first.params.limit },
      });
    }
  }
  const code = FIELD_CODES[field] ?? 'INVALID_PARAMETER';
  // A union of literals fails with one "const" error per branch: together they list what is allowed.
  const choices = errors
    .filter((e) => fieldOf(e) === field)
    .flatMap((e) =>
      e.keyword === 'const' ? [e.params.allowedValue] : Array.isArray(e.params.allowedValues) ? (e.params.allowedValues as unknown[]) : [],
    );
  const oneOf = choices.length > 0 && first.keyword !== 'required';
  const what =
    first.keyword === 'required'
      ? `${field} is required`
      : oneOf
        ? `${field || context || 'request'} must be one of`
        : `${field || context || 'request'} ${first.message ?? 'is invalid'}`;
  const allowed = oneOf ? ` ${choices.join(', ')}` : '';
  // The table's message already states the rule for range-checked fields.
  const message =
    code === 'INVALID_SPEED' || code === 'INVALID_PITCH' || code === 'INVALID_SAMPLE_RATE'
      ? `${what}: ${new ApiError(code).message}`
      : `${what}${allowed}.`;
  return new ApiError(code, { message, details });
}

/** The Content-Type a request sent (its media type, clipped), for messages. */
function sentType(request: FastifyRequest): string {
  const raw = request.headers['content-type'];
  const type = typeof raw === 'string' ? (raw.split(';')[0] ?? '').trim() : '';
  return type === '' ? 'none' : clip(type);
}

/** The body types the route takes: its schema's `consumes`, else JSON. */
function acceptedTypes(request: FastifyRequest): string {
  const consumes = (request.routeOptions?.schema as { consumes?: unknown } | undefined)?.consumes;
  return Array.isArray(consumes) && consumes.length > 0 ? consumes.map(String).join(' or ') : 'application/json';
}

function fastifyToApiError(err: FastifyError, request: FastifyRequest): ApiError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // Named from the request, not Fastify's message (which may hold no type at all: "unknown").
      return new ApiError('INVALID_REQUEST', {
        message: `Unsupported Content-Type: ${sentType(request)}; send ${acceptedTypes(request)}.`,
        details: { provided: sentType(request) },
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('REQUEST_TOO_LARGE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('INVALID_REQUEST', { message: 'The JSON body is empty.' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('INVALID_REQUEST', { message: 'The Content-Length header does not match the body.' });
    default:
      break;
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ApiError('INVALID_REQUEST', { message: `The JSON body is malformed: ${err.message}` });
  }
  return null;
}

/**
 * Errors that carry an HTTP status of their own: Fastify's, and http-errors from the libraries
 * under it (@fastify/send answers a NUL or a ".." in a file path with 400/403). A 4xx is the
 * client's; anything else is ours.
 */
function statusToApiError(err: { statusCode?: unknown; status?: unknown; message?: unknown }): ApiError | null {
  const status = typeof err.statusCode === 'number' ? err.statusCode : typeof err.status === 'number' ? err.status : 500;
  if (status === 413) return new ApiError('REQUEST_TOO_LARGE');
  // A file the static server will not hand out is answered as one that does not exist.
  if (status === 404 || status === 403) return new ApiError('NOT_FOUND');
  if (status >= 400 && status < 500)
    return new ApiError('INVALID_REQUEST', { message: typeof err.message === 'string' && err.message ? err.message : undefined });
  return null;
}

/**
 * Whether the caller is the dashboard: its pages and JSON API, or its playground calling the
 * public API with the session cookie instead of X-API-Key (an outage then speaks of the store).
 */
function fromDashboard(request: FastifyRequest): boolean {
  const url = request.url;
  if (url === '/dashboard' || url.startsWith('/dashboard/') || url.startsWith('/dashboard?')) return true;
  if (request.headers['x-api-key'] !== undefined || !request.headers.cookie) return false;
  try {
    return sessionCookie(request) !== undefined;
  } catch {
    return false;
  }
}

/** The error body for anything a request can end with: the layers' errors (src/faults/translate.ts), then the framework's. */
export function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  const mapped = serviceErrorToApiError(err, { dashboard: fromDashboard(request) });
  if (mapped) return mapped;
  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) return validationToApiError(request, fe.validation, fe.validationContext);
  if (fe && typeof fe === 'object') {
    const framework = ('code' in fe ? fastifyToApiError(fe, request) : null) ?? statusToApiError(fe);
    if (framework) return framework;
  }
  return new ApiError('INTERNAL_ERROR', { cause: err });
}

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.header('X-Request-ID', reply.request.id);
  if (err.retryAfter !== undefined) reply.header('Retry-After', String(Math.ceil(err.retryAfter)));
  // An error replaces whatever the handler had started to describe.
  reply.removeHeader('Content-Disposition');
  return reply.code(err.status).type('application/json; charset=utf-8').send(errorBody(err, reply.request.id));
}

/**
 * Fastify's frameworkErrors option: what the router refuses before any route or hook runs (a bad
 * percent-encoding in the path, a path parameter over maxParamLength) in the error body.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiErr = frameworkApiError(err, request);
  request.log.info({ code: apiErr.code, fastifyCode: err.code }, apiErr.message);
  void sendApiError(reply, apiErr);
}

/** What the router refused, as an ApiError (the dialects under /v1 render it in their shape: src/app.ts). */
export function frameworkApiError(err: FastifyError, request: FastifyRequest): ApiError {
  if (err.code === 'FST_ERR_BAD_URL')
    return new ApiError('INVALID_REQUEST', {
      message: 'The URL is not valid: it has a malformed percent-encoding.',
      resolution: 'Percent-encode the path as RFC 3986 says (% followed by two hex digits).',
    });
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return new ApiError('NOT_FOUND', { message: 'No endpoint has a path parameter this long.' });
  return toApiError(err, request);
}

export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler(async (err, request, reply) => {
      const apiErr = toApiError(err, request);
      const level = logLevelOf(apiErr);
      if (level === 'info') request.log.info({ code: apiErr.code }, apiErr.message);
      else request.log[level]({ err, code: apiErr.code }, 'request failed');
      return sendApiError(reply, apiErr);
    });
    app.setNotFoundHandler(async (request, reply) => {
      const path = clip(request.url.split('?')[0] ?? request.url);
      return sendApiError(reply, new ApiError('NOT_FOUND', { message: `No endpoint ${request.method} ${path}.` }));
    });
  },
  { name: 'parla-errors', fastify: '5.x' },
);
