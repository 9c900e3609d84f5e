// Pronunciations for words missing from the dictionary, from Flite's letter-to-sound rules
// (`flite -ps`), in the CMU phone set the US English acoustic model uses.

import { spawn } from 'node:child_process';

export const PHONES = new Set('AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH'.split(' '));

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

export function pronounce(word: string, binary = 'flite'): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(binary, ['-ps', '-t', word, '-o', 'none'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', () => resolve(null));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? fliteToArpabet(out) : null);
    });
  });
}
