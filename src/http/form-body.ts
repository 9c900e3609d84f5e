// application/x-www-form-urlencoded bodies, for the routes that invite a plain HTML form or a
// `curl -d` (POST /api/v1/stt/jobs with a url: docs/jobs.md). Parsed by URLSearchParams (linear
// time), into a null-prototype object: a repeated field (`keywords=a&keywords=b`, or `keywords[]`)
// becomes an array, which the route's own checks accept or refuse by name.

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

/** A form body is fields only (a URL and options), never audio. */
export const MAX_FORM_BODY = 64 * 1024;

export function parseForm(text: string): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  for (const [rawName, value] of new URLSearchParams(text)) {
    const name = rawName.replace(/\[\]$/, '');
    const prev = out[name];
    out[name] = prev === undefined ? (rawName.endsWith('[]') ? [value] : value) : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  return out;
}

/** Registers the form parser on `app` (an encapsulated plugin: its routes only). */
export function acceptFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: MAX_FORM_BODY }, (_request, body, done) => {
    try {
      done(null, parseForm(String(body)));
    } catch {
      done(new ApiError('INVALID_REQUEST', { message: 'The form body could not be read.' }), undefined);
    }
  });
}
