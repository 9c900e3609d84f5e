// Deepgram's Configure message, one reading for both sockets that take it: Flux (/v2/listen:
// thresholds) and the live socket (/v1/listen: formatting features). A Configure is applied whole
// or not at all (each socket answers exactly one ConfigureSuccess or ConfigureFailure). Keyterms:
// absent or null keeps them, as Deepgram documents; another list (within the bounds of the
// connect-time parameters) replaces them from the next utterance, when the session boosts them on
// another recognizer (decisions #46 and #76).

import { exceedsJsonDepth } from '../../domain/json-depth.js';

/** ok: the keyterms in effect from the next utterance (those asked, or the stream's). */
export type ConfigureResult = { ok: true; keyterms: string[] } | { ok: false; reason: string };

/** At most this many keyterms of at most this many characters, as the connect-time parameters. */
export const MAX_KEYTERMS = 100;
export const MAX_KEYTERM_LENGTH = 100;

/** A text frame as a JSON object, or null (not JSON, too deep, not an object). */
export function controlMessage(text: string): Record<string, unknown> | null {
  try {
    if (exceedsJsonDepth(text)) return null;
    const msg = JSON.parse(text) as unknown;
    return msg !== null && typeof msg === 'object' && !Array.isArray(msg) ? (msg as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Reads the message's keyterms, then `prepare` reads the socket's own fields and hands back what
 * applies them (it throws an Error whose message says what is wrong); `changed` is the new keyterm
 * list when it differs from the stream's, else null. Nothing is applied unless everything was read.
 */
export function configure(
  msg: Record<string, unknown>,
  keyterms: readonly string[],
  prepare: (msg: Record<string, unknown>, changed: string[] | null) => () => void,
  maxKeyterms = MAX_KEYTERMS,
): ConfigureResult {
  try {
    const k = msg.keyterms;
    let asked = [...keyterms];
    if (k !== undefined && k !== null) {
      if (!Array.isArray(k) || k.some((t) => typeof t !== 'string')) throw new Error('keyterms must be an array of strings');
      if (k.length > maxKeyterms * 2) throw new Error(`keyterms: at most ${maxKeyterms}`);
      asked = k.map((t: string) => t.trim()).filter((t) => t !== '');
      if (asked.length > maxKeyterms) throw new Error(`keyterms: at most ${maxKeyterms}`);
      if (asked.some((t) => t.length > MAX_KEYTERM_LENGTH)) throw new Error(`keyterms: each at most ${MAX_KEYTERM_LENGTH} characters`);
    }
    const same = asked.length === keyterms.length && asked.every((t, i) => t === keyterms[i]);
    prepare(msg, same ? null : asked)();
    return { ok: true, keyterms: asked };
  } catch (err) {
    return { ok: false, reason: (err as Error).message.slice(0, 300) };
  }
}

/** A Configure field that must be an object when present. */
export function objectField(msg: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const v = msg[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${name} must be an object`);
  return v as Record<string, unknown>;
}
