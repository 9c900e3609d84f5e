// What the live session tells apart in a failure: no recognizer to give (the stream ends
// overloaded, not failed), and a client's unknown message type, described without echoing it whole.

import { exceedsJsonDepth } from '../../domain/json-depth.js';
import { ApiError } from '../../errors.js';
import { EngineOverloadedError } from '../../domain/overload.js';

/** The engine (or the upgrade's wait bound) had no recognizer to give. */
export function isOverload(err: unknown): boolean {
  return err instanceof EngineOverloadedError || (err instanceof ApiError && err.code === 'SERVICE_OVERLOADED');
}

/** The client's "type" for an error message: quoted when a string, else only its kind (it may be JSON nested 100,000 deep). */
export function describeType(type: unknown): string {
  if (typeof type === 'string') return JSON.stringify(type.length > 64 ? `${type.slice(0, 64)}...` : type);
  return type === null || type === undefined ? 'null' : Array.isArray(type) ? 'array' : typeof type;
}

/**
 * A control message's JSON (any value), or undefined when it is not JSON. The HTTP edge's depth cap
 * (decisions on hostile input, src/http/json-body.ts): a message nested thousands deep is refused
 * in one linear scan instead of being parsed.
 */
export function parseControl(text: string): { type?: unknown } | null | undefined {
  try {
    return exceedsJsonDepth(text) ? undefined : (JSON.parse(text) as { type?: unknown } | null);
  } catch {
    return undefined;
  }
}
