// The nesting-depth cap every edge applies to JSON before parsing it (HTTP bodies in
// src/http/json-body.ts, WebSocket control messages in src/stt/live/session.ts): JSON.parse takes
// any depth, but whatever walks the value recursively afterwards overflows the stack on a value
// nested thousands deep, and no message of this API nests more than a few levels.

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
