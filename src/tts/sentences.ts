// Splits text into sentences for progressive streaming: audio can start after the first
// sentence instead of after the whole text. Over-long sentences are cut at clause boundaries
// (then spaces) so no single synthesis call delays the stream for long.

import { isAsciiLetter, isCloser, isSentenceEnd, isSpace } from './text-scan.js';

const MAX_CHUNK = 300;
// Common abbreviations whose period does not end a sentence.
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'no',
  'fig',
  'inc',
  'ltd',
  'co',
  'mt',
]);

function cutLong(sentence: string): string[] {
  if (sentence.length <= MAX_CHUNK) return [sentence];
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > MAX_CHUNK) {
    const window = rest.slice(0, MAX_CHUNK);
    let cut = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; '), window.lastIndexOf(': '));
    if (cut < MAX_CHUNK / 3) cut = window.lastIndexOf(' ');
    if (cut < MAX_CHUNK / 3) cut = MAX_CHUNK - 1;
    out.push(rest.slice(0, cut + 1));
    rest = rest.slice(cut + 1);
  }
  if (rest.trim() !== '') out.push(rest);
  return out;
}

/**
 * Where the sentence-end mark at text[i] ends its sentence: a run of . ! ? 。 ！ ？ …, closing quotes
 * or brackets, then whitespace (included) or the end of the text. -1 when the run does not end a
 * sentence ("3.5", "a.b"); `runEnd` is where that run stopped, so nothing is scanned twice.
 */
function sentenceEndAt(text: string, i: number): { end: number; runEnd: number; single: boolean } {
  const n = text.length;
  let j = i;
  while (j < n && isSentenceEnd(text.charCodeAt(j))) j++;
  const single = j - i === 1 && text.charCodeAt(i) === 0x2e;
  let k = j;
  while (k < n && isCloser(text.charCodeAt(k))) k++;
  let w = k;
  while (w < n && isSpace(text.charCodeAt(w))) w++;
  return { end: w > k || k === n ? w : -1, runEnd: k, single };
}

/** The letters and dots right before `at` (not before `from`), lower-cased: "Dr" in "Dr.", "e.g". */
function wordBefore(text: string, from: number, at: number): string {
  let i = at;
  while (i > from) {
    const c = text.charCodeAt(i - 1);
    if (!isAsciiLetter(c) && c !== 0x2e) break;
    i--;
  }
  return text.slice(i, at).toLowerCase();
}

/**
 * Sentences in order; concatenated they give back the input exactly. Scanned by hand in one pass
 * (the regex it replaces was quadratic on long runs of dots).
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    if (!isSentenceEnd(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const { end, runEnd, single } = sentenceEndAt(text, i);
    if (end === -1) {
      i = runEnd;
      continue;
    }
    const markAt = i;
    i = end;
    if (single) {
      const lastWord = wordBefore(text, start, markAt);
      // "Dr. Smith", "e.g. this", "3.5" (no space so never matched), single initials "J. Doe".
      if ((ABBREVIATIONS.has(lastWord) || (lastWord.length === 1 && isAsciiLetter(lastWord.charCodeAt(0)))) && end < text.length) continue;
    }
    out.push(...cutLong(text.slice(start, end)));
    start = end;
  }
  if (start < text.length) out.push(...cutLong(text.slice(start)));
  return out.filter((s) => s.length > 0);
}
