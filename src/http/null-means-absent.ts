// In a JSON body, `null` for a field means "not given" ({"speed": null} is speed 1.0): clients
// built from generated models send every field, unset ones as null. A required field sent as null
// is then missing, and refused as such (text: null is MISSING_TEXT). Done once for every body
// schema in the validator, so each route's schema stays as the interface documents it.

interface ObjectSchema {
  type?: unknown;
  properties?: Record<string, unknown>;
}

function acceptsNull(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return true;
  const s = schema as { type?: unknown; anyOf?: unknown; oneOf?: unknown; nullable?: unknown; const?: unknown };
  if (s.nullable === true || s.const === null) return true;
  if (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'))) return true;
  for (const list of [s.anyOf, s.oneOf]) if (Array.isArray(list) && list.some(acceptsNull)) return true;
  // No type constraint at all (an empty schema) accepts null as a value of its own.
  return s.type === undefined && s.anyOf === undefined && s.oneOf === undefined && s.const === undefined && !('enum' in s);
}

/**
 * The top-level fields of an object body schema for which null is dropped before validation:
 * those whose own schema rejects null (where null is a value, it stays one).
 */
export function nullableAsAbsent(schema: unknown): string[] {
  const s = schema as ObjectSchema | null;
  if (!s || s.type !== 'object' || typeof s.properties !== 'object' || s.properties === null) return [];
  return Object.entries(s.properties)
    .filter(([, prop]) => !acceptsNull(prop))
    .map(([name]) => name);
}

/** Wraps a compiled body validator (Ajv's): fields sent as null are removed first. */
export function withNullMeansAbsent<V extends ((data: unknown) => unknown) & { errors?: unknown }>(schema: unknown, validate: V): V {
  const fields = nullableAsAbsent(schema);
  if (fields.length === 0) return validate;
  const wrapped = (data: unknown) => {
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
      const body = data as Record<string, unknown>;
      for (const f of fields) if (body[f] === null) delete body[f];
    }
    const ok = validate(data);
    // Fastify reads the errors of a failed validation from the function it was given.
    (wrapped as { errors?: unknown }).errors = validate.errors;
    return ok;
  };
  return wrapped as unknown as V;
}
