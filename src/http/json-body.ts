// The JSON body parser of the whole app: Fastify's own (secure-json-parse, prototype poisoning
// refused) behind a cap on nesting depth. JSON.parse itself takes any depth, but everything that
// walks the parsed value recursively afterwards (validation, JSON.stringify of an offending field
// in an error body) overflows the stack on a value nested thousands of levels deep; no request of
// this API nests more than a few levels, so deeper bodies are refused before they are parsed.

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

/** Deepest nesting of objects and arrays a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` (JSON or not) opens more than `limit` objects/arrays inside one another. One
 * linear pass, written by hand because no JSON library reports depth without building the value
 * first. Strings are skipped with indexOf (native speed: a body is mostly its text field); a quote
 * preceded by an odd run of backslashes is escaped. Each backslash run is counted once, before
 * the one quote it precedes, so the pass stays linear.
 */
export function exceedsJsonDepth(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  // Fewer characters than the limit cannot open more brackets than the limit.
  if (text.length <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let close = i;
      for (;;) {
        close = text.indexOf('"', close + 1);
        // Unterminated: JSON.parse refuses it anyway.
        if (close === -1) return false;
        let backslashes = 0;
        while (text.charCodeAt(close - 1 - backslashes) === 0x5c /* \ */) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      i = close;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** Replaces Fastify's application/json parser with the same parser behind the depth cap. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (exceedsJsonDepth(text)) {
      done(new ApiError('INVALID_REQUEST', { message: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, details: { limit: MAX_JSON_DEPTH } }), undefined);
      return;
    }
    parse(request, text, done);
  });
}
