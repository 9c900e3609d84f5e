// Which dialect answers a request under /v1 (docs/compatibility.md, "One /v1, two dialects"):
// OpenAI's and Deepgram's APIs share the prefix, and each client parses only its own answers (the
// Deepgram SDK reads `stt`/`tts` from GET /v1/models and `err_msg` from an error; the OpenAI SDK
// `data` and `error.message`). A path that belongs to one vendor's API decides; on a path both
// have (/v1/models) or neither has, the credential's scheme does: `Token` is Deepgram's SDK,
// anything else (Bearer, X-API-Key, none) OpenAI's. Every answer under /v1, errors included (a
// malformed URL, an unknown path, a refused key), is rendered in that dialect's shape.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { sendDeepgramError } from './deepgram/errors.js';
import { sendOpenAiError } from './openai/errors.js';

export type Dialect = 'openai' | 'deepgram';

/** First segments after /v1 that only Deepgram's API has (its REST reference). */
const DEEPGRAM_ONLY = new Set([
  'listen',
  'speak',
  'read',
  'projects',
  'auth',
  'agent',
  'manage',
  'selfhosted',
  'billing',
  'keys',
  'members',
  'usage',
  'requests',
  'balances',
]);
/** First segments after /v1 that only OpenAI's API has. */
const OPENAI_ONLY = new Set([
  'audio',
  'chat',
  'completions',
  'embeddings',
  'images',
  'files',
  'uploads',
  'batches',
  'fine_tuning',
  'moderations',
  'assistants',
  'threads',
  'vector_stores',
  'responses',
  'realtime',
  'organization',
  'containers',
  'conversations',
  'evals',
  'videos',
]);

/** The first path segment after /v1/ (lower case), or '' for /v1 itself. */
function firstSegment(url: string): string {
  const path = url.split('?')[0] ?? '';
  const rest = path.startsWith('/v1/') ? path.slice(4) : '';
  const end = rest.indexOf('/');
  return (end < 0 ? rest : rest.slice(0, end)).toLowerCase();
}

/** Whether the credential is Deepgram's `Authorization: Token <key>` (scheme in any case). */
function deepgramCredential(authorization: string | string[] | undefined): boolean {
  const h = Array.isArray(authorization) ? authorization[0] : authorization;
  return typeof h === 'string' && /^token(\s|$)/i.test(h.trimStart());
}

export function dialectOf(url: string, authorization: string | string[] | undefined): Dialect {
  const segment = firstSegment(url);
  if (DEEPGRAM_ONLY.has(segment)) return 'deepgram';
  if (OPENAI_ONLY.has(segment)) return 'openai';
  return deepgramCredential(authorization) ? 'deepgram' : 'openai';
}

/** Whether a request URL is under /v1 (a dialect's, not the native API's). */
export function underV1(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

/** Sends `err` in the shape of the request's dialect. */
export function sendDialectError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  if (dialectOf(request.url, request.headers.authorization) === 'deepgram') {
    return sendDeepgramError(request, reply, err, firstSegment(request.url) === 'speak' ? 'speak' : 'listen');
  }
  return sendOpenAiError(request, reply, err);
}

/** The 404 for a path no route has, in the request's dialect. */
export function sendDialectNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendDialectError(
    request,
    reply,
    new ApiError('NOT_FOUND', { message: `No endpoint ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)}.` }),
  );
}
