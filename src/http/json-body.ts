// The JSON body parser of the whole app: Fastify's own (secure-json-parse, prototype poisoning
// refused) behind a cap on nesting depth. JSON.parse itself takes any depth, but everything that
// walks the parsed value recursively afterwards (validation, JSON.stringify of an offending field
// in an error body) overflows the stack on a value nested thousands of levels deep; no request of
// this API nests more than a few levels, so deeper bodies are refused before they are parsed.

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

export { MAX_JSON_DEPTH, exceedsJsonDepth } from '../domain/json-depth.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../domain/json-depth.js';

/** Replaces Fastify's application/json parser with the same parser behind the depth cap. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (exceedsJsonDepth(text)) {
      done(
        new ApiError('INVALID_REQUEST', {
          message: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`,
          details: { limit: MAX_JSON_DEPTH },
        }),
        undefined,
      );
      return;
    }
    parse(request, text, done);
  });
}
