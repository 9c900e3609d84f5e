// The suite-wide invariant of issue 19 for one answer: a 2xx, or a 4xx with the spec's error body
// exactly as errorBody() builds it (status and category as the ERRORS table says), or a 503
// SERVICE_OVERLOADED with Retry-After; X-Request-ID on every answer; never a 5xx, never a stall,
// never a closed connection without an answer. Under /v1 (the OpenAI dialect, docs/compatibility.md)
// the error body is OpenAI's {"error": {message, type, param, code}} for the same table entry.

import { ERRORS, type ErrorCode } from '../../src/errors.js';
import { dialectOf } from '../../src/compat/dialect.js';
import type { CaseExpect } from './corpus.js';
import type { Outcome, RawResponse } from './wire.js';

const BODY_KEYS = ['error', 'request_id', 'success', 'timestamp'];
const ERROR_KEYS = ['category', 'code', 'details', 'message', 'resolution'];

/** Problems with a non-2xx answer's body and headers (empty when it is the spec's). */
export function errorBodyProblems(res: RawResponse): string[] {
  const out: string[] = [];
  if (!/^application\/json/.test(res.headers['content-type'] ?? ''))
    out.push(`Content-Type ${JSON.stringify(res.headers['content-type'] ?? null)} is not JSON`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return [...out, `body is not JSON: ${JSON.stringify(res.body.subarray(0, 160).toString('utf8'))}`];
  }
  if (typeof body !== 'object' || body === null) return [...out, 'body is not an object'];
  if (JSON.stringify(Object.keys(body).sort()) !== JSON.stringify(BODY_KEYS))
    out.push(`body keys ${JSON.stringify(Object.keys(body))}: ${JSON.stringify(body).slice(0, 200)}`);
  if (body.success !== false) out.push('success is not false');
  const e = body.error as Record<string, unknown> | undefined;
  if (typeof e !== 'object' || e === null) return [...out, 'no error object'];
  if (JSON.stringify(Object.keys(e).sort()) !== JSON.stringify(ERROR_KEYS)) out.push(`error keys ${JSON.stringify(Object.keys(e))}`);
  const spec = ERRORS[e.code as ErrorCode] as (typeof ERRORS)[ErrorCode] | undefined;
  if (!spec) out.push(`unknown error code ${JSON.stringify(e.code)}`);
  else {
    if (spec.status !== res.status) out.push(`${String(e.code)} is ${spec.status} in the table, answered ${res.status}`);
    if (spec.category !== e.category) out.push(`${String(e.code)} has category ${spec.category}, answered ${JSON.stringify(e.category)}`);
  }
  if (typeof e.message !== 'string' || e.message === '') out.push('message is not a non-empty string');
  if (typeof e.resolution !== 'string' || e.resolution === '') out.push('resolution is not a non-empty string');
  if (typeof e.details !== 'object' || e.details === null || Array.isArray(e.details)) out.push('details is not an object');
  if (body.request_id !== res.headers['x-request-id'])
    out.push(
      `request_id ${JSON.stringify(body.request_id)} differs from X-Request-ID ${JSON.stringify(res.headers['x-request-id'] ?? null)}`,
    );
  if (typeof body.timestamp !== 'number') out.push('timestamp is not a number');
  return out;
}

/** OpenAI's error type for each category of the table (src/compat/openai/errors.ts says the same). */
const OPENAI_TYPES: Record<string, string> = {
  authentication: 'authentication_error',
  permission: 'permission_error',
  validation: 'invalid_request_error',
  model: 'invalid_request_error',
  credit: 'insufficient_quota',
  rate_limit: 'rate_limit_error',
  not_found: 'not_found_error',
  server: 'server_error',
};

/** Problems with a non-2xx answer of the OpenAI dialect (empty when it is OpenAI's shape for the table's entry). */
export function openAiErrorBodyProblems(res: RawResponse): string[] {
  const out: string[] = [];
  if (!/^application\/json/.test(res.headers['content-type'] ?? ''))
    out.push(`Content-Type ${JSON.stringify(res.headers['content-type'] ?? null)} is not JSON`);
  let body: { error?: Record<string, unknown> };
  try {
    body = JSON.parse(res.body.toString('utf8')) as typeof body;
  } catch {
    return [...out, `body is not JSON: ${JSON.stringify(res.body.subarray(0, 160).toString('utf8'))}`];
  }
  if (typeof body !== 'object' || body === null || JSON.stringify(Object.keys(body)) !== '["error"]')
    return [...out, `body is not {"error": ...}: ${JSON.stringify(body).slice(0, 200)}`];
  const e = body.error;
  if (typeof e !== 'object' || e === null) return [...out, 'no error object'];
  if (JSON.stringify(Object.keys(e).sort()) !== JSON.stringify(['code', 'message', 'param', 'type']))
    out.push(`error keys ${JSON.stringify(Object.keys(e))}`);
  if (typeof e.message !== 'string' || e.message === '') out.push('message is not a non-empty string');
  if (!(e.param === null || (typeof e.param === 'string' && e.param !== '')))
    out.push(`param ${JSON.stringify(e.param)} is neither null nor a field name`);
  const code = typeof e.code === 'string' ? (e.code === 'invalid_api_key' ? 'AUTH_INVALID_API_KEY' : e.code.toUpperCase()) : '';
  const spec = ERRORS[code as ErrorCode] as (typeof ERRORS)[ErrorCode] | undefined;
  if (!spec) out.push(`unknown error code ${JSON.stringify(e.code)}`);
  else {
    if (spec.status !== res.status) out.push(`${code} is ${spec.status} in the table, answered ${res.status}`);
    if (OPENAI_TYPES[spec.category] !== e.type)
      out.push(`${code} (${spec.category}) has OpenAI type ${OPENAI_TYPES[spec.category]}, answered ${JSON.stringify(e.type)}`);
  }
  return out;
}

/** Deepgram's err_code for each category (src/compat/deepgram/errors.ts says the same; speak's credit is PAYMENT_REQUIRED). */
const DEEPGRAM_CODES: Record<string, string[]> = {
  authentication: ['INVALID_AUTH'],
  permission: ['INSUFFICIENT_PERMISSIONS'],
  validation: ['Bad Request'],
  model: ['Bad Request'],
  credit: ['ASR_PAYMENT_REQUIRED', 'PAYMENT_REQUIRED'],
  rate_limit: ['TOO_MANY_REQUESTS'],
  not_found: ['NOT_FOUND'],
  server: ['INTERNAL_SERVER_ERROR'],
};

/** Problems with a non-2xx answer of the Deepgram dialect (empty when it is Deepgram's body for the table's entry). */
export function deepgramErrorBodyProblems(res: RawResponse): string[] {
  const out: string[] = [];
  if (!/^application\/json/.test(res.headers['content-type'] ?? ''))
    out.push(`Content-Type ${JSON.stringify(res.headers['content-type'] ?? null)} is not JSON`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return [...out, `body is not JSON: ${JSON.stringify(res.body.subarray(0, 160).toString('utf8'))}`];
  }
  if (typeof body !== 'object' || body === null) return [...out, 'body is not an object'];
  if (JSON.stringify(Object.keys(body).sort()) !== JSON.stringify(['err_code', 'err_msg', 'parla_code', 'request_id']))
    out.push(`body keys ${JSON.stringify(Object.keys(body))}: ${JSON.stringify(body).slice(0, 200)}`);
  if (typeof body.err_msg !== 'string' || body.err_msg === '') out.push('err_msg is not a non-empty string');
  if (body.request_id !== res.headers['x-request-id'] || res.headers['dg-request-id'] !== res.headers['x-request-id'])
    out.push('request_id, dg-request-id and X-Request-ID differ');
  const spec = ERRORS[body.parla_code as ErrorCode] as (typeof ERRORS)[ErrorCode] | undefined;
  if (!spec) out.push(`unknown parla_code ${JSON.stringify(body.parla_code)}`);
  else {
    if (spec.status !== res.status) out.push(`${String(body.parla_code)} is ${spec.status} in the table, answered ${res.status}`);
    if (!DEEPGRAM_CODES[spec.category]?.includes(String(body.err_code)))
      out.push(`${String(body.parla_code)} (${spec.category}) answered err_code ${JSON.stringify(body.err_code)}`);
  }
  return out;
}

export function errorCodeOf(res: RawResponse): string | null {
  try {
    const parsed = JSON.parse(res.body.toString('utf8')) as { error?: { code?: string }; parla_code?: string };
    if (typeof parsed.parla_code === 'string') return parsed.parla_code;
    const code = parsed.error?.code ?? null;
    // The OpenAI dialect's codes are the table's in lower case.
    return code === null ? null : code === 'invalid_api_key' ? 'AUTH_INVALID_API_KEY' : code.toUpperCase();
  } catch {
    return null;
  }
}

/** Every way the answer breaks the invariant or the case's own expectation. */
export function answerProblems(o: Outcome, method: string, expect: CaseExpect = {}, path = '', authorization?: string): string[] {
  if (o.kind === 'stall') return [`no answer within ${Math.round(o.ms)} ms (stall)`];
  if (o.kind === 'no-answer') return [`connection ended without an answer: ${o.error}`];
  const res = o.res;
  const out: string[] = [];
  const s = res.status;
  if (!/^req_[0-9a-f]{32}$/.test(res.headers['x-request-id'] ?? ''))
    out.push(`X-Request-ID ${JSON.stringify(res.headers['x-request-id'] ?? null)} is missing or not ours`);
  if (s >= 200 && s < 300) {
    if (expect.not2xx) out.push(`answered ${s}; expected a refusal`);
  } else if ((s >= 400 && s < 500) || s === 503) {
    // Under /v1 the dialect of the request (src/compat/dialect.ts): Deepgram's paths and Token keys get Deepgram's body.
    const v1 = path.startsWith('/v1/') || path === '/v1';
    if (method !== 'HEAD')
      out.push(
        ...(!v1
          ? errorBodyProblems(res)
          : dialectOf(path, authorization) === 'deepgram'
            ? deepgramErrorBodyProblems(res)
            : openAiErrorBodyProblems(res)),
      );
    if (s === 503 && (errorCodeOf(res) !== 'SERVICE_OVERLOADED' || !res.headers['retry-after']))
      out.push(`503 that is not SERVICE_OVERLOADED with Retry-After: ${res.body.subarray(0, 200).toString()}`);
    if (expect.code && s !== 503 && !expect.code.includes(errorCodeOf(res) ?? ''))
      out.push(`code ${errorCodeOf(res)}; expected ${expect.code.join(' or ')}`);
  } else {
    out.push(`status ${s}: ${res.body.subarray(0, 200).toString('utf8')}`);
  }
  const shown =
    s < 300 ? `${res.headers['content-type'] ?? 'no Content-Type'}, ${res.body.length} bytes` : res.body.subarray(0, 160).toString('utf8');
  if (expect.status && !expect.status.includes(s) && s !== 503) out.push(`status ${s}; expected ${expect.status.join(' or ')} (${shown})`);
  const extra = expect.check?.(res);
  if (extra) out.push(extra);
  return out;
}
