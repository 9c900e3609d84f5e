// Schemas shared by routes: the error body of docs/interface.md, and the standard error responses
// each authenticated route declares so the OpenAPI document lists them.

import { Type, type TSchema } from 'typebox';

export const ErrorBodySchema = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable code (docs/errors.md).' }),
      message: Type.String(),
      category: Type.String({ description: 'authentication, validation, credit, rate_limit, model, permission, not_found or server' }),
      resolution: Type.String(),
      details: Type.Object(
        {},
        { additionalProperties: true, description: 'May hold provided (string) and suggestions (array of string).' },
      ),
    }),
    request_id: Type.String(),
    timestamp: Type.Number({ description: 'Unix time in seconds with fraction.' }),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

const ref = Type.Unsafe<unknown>({ $ref: 'ErrorBody#' });

/** Error responses of an authenticated route, plus any route-specific statuses. */
export function errorResponses(...extra: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of [400, 401, 403, 429, 500, 503, ...extra]) out[s] = ref;
  return out;
}
