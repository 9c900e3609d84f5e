// Pronunciations for words missing from the dictionary, from Flite's letter-to-sound rules
// (`flite -ps`), in the CMU phone set the US English acoustic model uses.

import { sharedSpawner } from '../../process/spawner.js';

export const PHONES = new Set(
  'AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH'.split(' '),
);

/** A dictionary-safe form of a keyword: lowercase letters and apostrophes, or null. */
export function normalizeKeyword(raw: string): string | null {
  const w = raw.trim().toLowerCase();
  return /^[a-z][a-z']{0,39}$/.test(w) ? w : null;
}

export function fliteToArpabet(out: string): string | null {
  const phones = out
    .trim()
    .split(/\s+/)
    .filter((p) => p && p !== 'pau')
    .map((p) => (p === 'ax' ? 'AH' : p.toUpperCase()));
  return phones.length > 0 && phones.every((p) => PHONES.has(p)) ? phones.join(' ') : null;
}

/** Flite's pronunciation of one word (started through the node's spawner, src/process/spawner.ts), or null. */
export async function pronounce(word: string, binary = 'flite'): Promise<string | null> {
  try {
    const run = await sharedSpawner().collect(binary, ['-ps', '-t', word, '-o', 'none'], {
      signal: AbortSignal.timeout(5000),
      maxBytes: 64 * 1024,
    });
    return run.code === 0 ? fliteToArpabet(run.stdout.toString()) : null;
  } catch {
    return null;
  }
}
