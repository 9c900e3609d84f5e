// Redaction and profanity filtering of recognized words, offline (decision #44): Deepgram's
// `redact` (`pci`, `ssn`, `numbers` / `true`) and `profanity_filter`, and the native endpoints'
// options of the same names. It works on the word sequence, not on the text: a recognizer says
// "four one one one ..." as words (or "4111" after smart format), so a number is a run of
// numeric words. One pass over the words with Set lookups: linear in the transcript.
//
// - pci: a run whose digits (13 to 19) pass the Luhn check is a card number -> [CREDIT_CARD_n].
// - ssn: a run of exactly 9 digits that is a valid SSN (area not 000, 666 or 9xx, group not 00,
//   serial not 0000) -> [SSN_n].
// - numbers: every run of numeric words -> [NUMBER_n] (Deepgram: "aggressively redacts strings of
//   numbers").
// - profanity: a word on the English list of LDNOOBW (the `naughty-words` package, CC-BY-4.0,
//   single words only) keeps its first letter, the rest become asterisks ("f***").

import { createRequire } from 'node:module';
import type { Transcript } from './transcript.js';

export type RedactKind = 'pci' | 'ssn' | 'numbers';
export const REDACT_KINDS: readonly RedactKind[] = ['pci', 'ssn', 'numbers'];

export interface RedactOptions {
  redact: readonly RedactKind[];
  profanityFilter: boolean;
}

export const NO_REDACTION: RedactOptions = { redact: [], profanityFilter: false };

export function redacting(o: RedactOptions): boolean {
  return o.redact.length > 0 || o.profanityFilter;
}

/** The least a word carries: its bare form and its written (punctuated) form. */
export interface RedactableWord {
  word: string;
  punctuated: string;
  start: number;
  end: number;
  confidence?: number;
}

const DIGIT_WORDS: ReadonlyMap<string, string> = new Map([
  ['zero', '0'],
  ['oh', '0'],
  ['o', '0'],
  ['one', '1'],
  ['two', '2'],
  ['three', '3'],
  ['four', '4'],
  ['five', '5'],
  ['six', '6'],
  ['seven', '7'],
  ['eight', '8'],
  ['nine', '9'],
]);
/** Number words that are no single digit: a run with one of them has no digit string of its own. */
const OTHER_NUMBER_WORDS: ReadonlySet<string> = new Set([
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
  'thirty',
  'forty',
  'fifty',
  'sixty',
  'seventy',
  'eighty',
  'ninety',
  'hundred',
  'thousand',
  'million',
  'billion',
  'double',
  'triple',
]);

let profanity: ReadonlySet<string> | null = null;
function profanitySet(): ReadonlySet<string> {
  if (!profanity) {
    const list = createRequire(import.meta.url)('naughty-words/en.json') as string[];
    profanity = new Set(list.filter((w) => !w.includes(' ')).map((w) => w.toLowerCase()));
  }
  return profanity;
}

/** Lower-case letters and digits of a word, separators dropped ("4111-1111," -> "41111111"). */
function bare(s: string): string {
  let out = '';
  for (const ch of s.toLowerCase()) if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch === "'") out += ch;
  return out;
}

/** The digits a word stands for: "" when it is no number, null when it is a number without a digit string (twenty). */
function digitsOf(word: string): string | null | '' {
  const b = bare(word);
  if (b === '') return '';
  let allDigits = true;
  for (const ch of b) if (ch < '0' || ch > '9') allDigits = false;
  if (allDigits) return b;
  const d = DIGIT_WORDS.get(b);
  if (d !== undefined) return d;
  return OTHER_NUMBER_WORDS.has(b) ? null : '';
}

export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function validSsn(d: string): boolean {
  if (d.length !== 9) return false;
  const area = d.slice(0, 3);
  return area !== '000' && area !== '666' && d[0] !== '9' && d.slice(3, 5) !== '00' && d.slice(5) !== '0000';
}

/** Trailing punctuation of a written word, kept after a replacement ("1234." -> "."). */
function trailing(s: string): string {
  let i = s.length;
  while (i > 0 && '.,!?;:'.includes(s[i - 1]!)) i--;
  return s.slice(i);
}

/**
 * The words with what was asked redacted: each redacted run becomes one word spanning it. The
 * input is not changed. `counters` numbers the replacements across calls (a live stream's results).
 */
export function redactWords<W extends RedactableWord>(
  words: readonly W[],
  o: RedactOptions,
  counters: Map<string, number> = new Map(),
): W[] {
  if (!redacting(o)) return [...words];
  const out: W[] = [];
  const label = (kind: string) => {
    const n = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, n);
    return `[${kind}_${n}]`;
  };
  let i = 0;
  while (i < words.length) {
    // A run of numeric words starting here.
    let j = i;
    let digits: string | null = '';
    while (j < words.length) {
      const d = digitsOf(words[j]!.word);
      if (d === '') break;
      digits = d === null || digits === null ? null : digits + d;
      j++;
      // A sentence ends the run: "room 42. Oh well" is one number, not "42 oh".
      if (/[.?!]/.test(trailing(words[j - 1]!.punctuated))) break;
    }
    // "oh" alone is an interjection, not a zero.
    if (j === i + 1 && (bare(words[i]!.word) === 'oh' || bare(words[i]!.word) === 'o')) j = i;
    if (j > i) {
      const kind =
        o.redact.includes('pci') && digits !== null && digits.length >= 13 && digits.length <= 19 && luhn(digits)
          ? 'CREDIT_CARD'
          : o.redact.includes('ssn') && digits !== null && validSsn(digits)
            ? 'SSN'
            : o.redact.includes('numbers')
              ? 'NUMBER'
              : null;
      if (kind) {
        const first = words[i]!;
        const last = words[j - 1]!;
        const token = label(kind);
        let confidence: number | undefined;
        for (let k = i; k < j; k++) if (words[k]!.confidence !== undefined) confidence = Math.min(confidence ?? 1, words[k]!.confidence!);
        out.push({
          ...first,
          word: token,
          punctuated: token + trailing(last.punctuated),
          start: first.start,
          end: last.end,
          ...(confidence === undefined ? {} : { confidence }),
        });
      } else for (let k = i; k < j; k++) out.push(words[k]!);
      i = j;
      continue;
    }
    const w = words[i]!;
    out.push(o.profanityFilter && profanitySet().has(bare(w.word)) ? { ...w, word: mask(w.word), punctuated: mask(w.punctuated) } : w);
    i++;
  }
  return out;
}

/** First letter kept, the other letters starred, punctuation kept. */
function mask(s: string): string {
  let seen = false;
  let out = '';
  for (const ch of s) {
    const letter = ch.toLowerCase() !== ch.toUpperCase();
    out += letter && seen ? '*' : ch;
    if (letter) seen = true;
  }
  return out;
}

/** A transcript with its words redacted, segment by segment (a run never spans two segments); text rebuilt from the words. */
export function redactTranscript(t: Transcript, o: RedactOptions): Transcript {
  if (!redacting(o)) return t;
  const counters = new Map<string, number>();
  const segments = t.segments.map((s) => {
    const words = redactWords(s.words, o, counters);
    return { ...s, words, text: words.map((w) => w.punctuated).join(' ') };
  });
  // Words outside every segment (none today) would escape redaction: the words are the segments'.
  const words = segments.flatMap((s) => s.words);
  return { text: segments.map((s) => s.text).join(' '), words, segments };
}
