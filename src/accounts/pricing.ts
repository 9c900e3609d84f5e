// Prices from configuration (decisions #2): TTS per character after markup removal, STT per
// started second of audio (minimum one second). Markup that makes audio is priced as characters
// too (issue 19: 600 laugh tags made 16 MB of audio for 0 credits): each vocalization counts as
// VOCALIZATION_CHARACTERS, each second of break silence as BREAK_CHARACTERS_PER_SECOND (the total
// rounded up). The same count goes against the monthly character quota. docs/operations.md, Billing.

import type { ProductConfig } from '../config.js';

/** A vocalization (<laugh>, <sigh>, ...) is voiced as a short utterance: about 10 characters of speech. */
export const VOCALIZATION_CHARACTERS = 10;
/** A second of silence is billed like the 10 characters of speech it stands in for. */
export const BREAK_CHARACTERS_PER_SECOND = 10;

/** Characters as Unicode code points (a surrogate pair is one character). */
export function countCharacters(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Billable characters of a TTS request: its text without tags, plus its vocalizations and break silence. */
export function ttsCharacters(textCharacters: number, vocalizations: number, breakSeconds: number): number {
  return textCharacters + vocalizations * VOCALIZATION_CHARACTERS + Math.ceil(breakSeconds * BREAK_CHARACTERS_PER_SECOND - 1e-9);
}

export function ttsCredits(product: ProductConfig, model: string, characters: number): number {
  const rate = product.pricing.ttsCreditsPerCharacter[model];
  if (rate === undefined) throw new Error(`no TTS price configured for model ${model}`);
  return rate * characters;
}

export function billableSeconds(durationSeconds: number): number {
  return Math.max(1, Math.ceil(durationSeconds - 1e-9));
}

export function sttCredits(product: ProductConfig, model: string, durationSeconds: number): number {
  const rate = product.pricing.sttCreditsPerSecond[model];
  if (rate === undefined) throw new Error(`no STT price configured for model ${model}`);
  return rate * billableSeconds(durationSeconds);
}
