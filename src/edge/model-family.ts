// How the dialects' model ids find a Parla model (docs/compatibility.md): the configured table's
// own entry (never an inherited member: issue 30, item 9), else the longest entry the id starts
// with followed by "-" (a family and its snapshots and variants: gpt-4o-mini-tts-2025-12-15 ->
// gpt-4o-mini-tts, nova-2-meeting -> nova-2), and, for TTS, the best model of the mapped one's
// line that the key's plan includes (decision #38: tts-1-hd on the free plan is aura-prime, not a
// 403 naming a model the client never sent).

import { own } from '../domain/lookup.js';
import { ApiError } from '../errors.js';

/** A model-like name (letters, digits, "-", ".", "_"; at most 100): only such a name has a family. */
export function isModelName(name: string): boolean {
  if (name.length === 0 || name.length > 100) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f;
    if (!ok) return false;
  }
  return true;
}

/** The table's value for `name` itself, else for its longest family; undefined when neither. */
export function familyLookup<V>(name: string, table: Readonly<Record<string, V>>): V | undefined {
  const exact = own(table, name);
  if (exact !== undefined) return exact;
  if (!isModelName(name)) return undefined;
  let best: string | undefined;
  for (const family of Object.keys(table)) {
    if (
      name.length > family.length + 1 &&
      name.startsWith(family) &&
      name[family.length] === '-' &&
      (best === undefined || family.length > best.length)
    )
      best = family;
  }
  return best === undefined ? undefined : own(table, best);
}

/**
 * Parla's TTS models by line, best first: each line shares its voices (the Aura voices the
 * dialects' voice tables name; the Rapid ones), so stepping down a line keeps the voice.
 */
const TTS_LINES: readonly (readonly string[])[] = [
  ['aura-max', 'aura-prime', 'aura-lite'],
  ['rapid-max', 'rapid-flash'],
];

/**
 * The model a dialect's id is spoken with under a plan: the mapped one when the plan includes it,
 * else the best model below it on its line that the plan includes. None: 403 naming the id the
 * client sent (`asked`), never only the Parla model it was mapped to.
 */
export function planTtsModel(asked: string, mapped: string, plan: string, included: readonly string[]): string {
  if (included.includes(mapped)) return mapped;
  const line = TTS_LINES.find((l) => l.includes(mapped)) ?? [mapped];
  const found = line.slice(line.indexOf(mapped) + 1).find((m) => included.includes(m));
  if (found !== undefined) return found;
  throw new ApiError('MODEL_ACCESS_DENIED', {
    message: `The ${plan} plan includes no model for "${asked.slice(0, 100)}" (${mapped}${line.length > 1 ? ` or a lesser model of its line` : ''}); it includes ${included.join(', ')}.`,
    details: { field: 'model', provided: asked.slice(0, 200), suggestions: [...included] },
  });
}
