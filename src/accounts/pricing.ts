// Prices from configuration (decisions #2): TTS per character after markup removal, STT per
// started second of audio (minimum one second).

import type { ProductConfig } from '../config.js';

/** Characters as Unicode code points (a surrogate pair is one character). */
export function countCharacters(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
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
