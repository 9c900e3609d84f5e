// The words of a timed chunk (POST /tts/generate/with-timestamps; issue 29, item 4). The engine
// is given the spoken form (normalize/: "$3.50" -> "3 dollars and 50 cents", and for an engine
// whose audio is force-aligned, every English number in words), so the words timed are the words
// said; each keeps the range of the text as written it stands for (normalize/mapped.ts), and the
// words that stand for one written form are joined back into it ("1,250": one word, timed from
// the start of "one" to the end of "fifty"). Before this the aligner was given "1" and "250" for
// "one thousand two hundred fifty" and placed every later word up to 2 s early.

import type { AlignedSpan } from '../engines/pocketsphinx/aligner.js';
import { normalizeMapped } from './normalize/normalize.js';
import { spellNumbersEnglish } from './normalize/spell-en.js';
import { readingLanguage, toReadings, type Readings } from './readings/readings.js';

/** A word of the text: as written, and where it is in the text the engine was given. */
export interface TextWord {
  word: string;
  /** [from, to) in the engine's text (the readings, when the text was converted). */
  from: number;
  to: number;
  /** [textFrom, textTo) in the text the words were found in, when that is not the engine's. */
  textFrom?: number;
  textTo?: number;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const APOSTROPHES = new Set(["'", '\u2019']);

/**
 * The words of a text in order: runs of letters, digits and marks, with an apostrophe inside a
 * word ("don't") kept; offsets in UTF-16 units. One pass over the characters (no regex over the text).
 */
export function spokenWords(text: string): TextWord[] {
  const out: TextWord[] = [];
  let from = -1;
  let i = 0;
  const at = (k: number) => String.fromCodePoint(text.codePointAt(k) ?? 0);
  while (i < text.length) {
    const c = at(i);
    const word = WORD_CHAR.test(c) || (from >= 0 && APOSTROPHES.has(c) && i + 1 < text.length && WORD_CHAR.test(at(i + 1)));
    if (word && from < 0) from = i;
    if (!word && from >= 0) {
      out.push({ word: text.slice(from, i), from, to: i });
      from = -1;
    }
    i += c.length;
  }
  if (from >= 0) out.push({ word: text.slice(from), from, to: text.length });
  return out;
}

/**
 * The words of a chunk, placed in the text the engine read. Japanese has no spaces: its words are
 * the analyser's tokens (`wordTokens`), each placed on its reading. Elsewhere words are found in
 * the text as written and, when parts of it were converted (Korean hanja), moved onto the readings
 * token by token.
 */
export function textWords(text: string, wordTokens: Readings | null, readings: Readings | null): TextWord[] {
  if (wordTokens) {
    const out: TextWord[] = [];
    let at = 0;
    let src = 0;
    for (const t of wordTokens.tokens) {
      const word = cleanWord(t.surface);
      if (word) out.push({ word, from: at, to: at + t.reading.length, textFrom: src, textTo: src + t.surface.length });
      at += t.reading.length;
      src += t.surface.length;
    }
    return out;
  }
  const words = spokenWords(text);
  if (!readings) return words;
  // Source offset -> reading offset: a token's characters map onto its reading in order.
  const spokenAt = new Int32Array(text.length + 1);
  let src = 0;
  let dst = 0;
  for (const t of readings.tokens) {
    for (let k = 0; k < t.surface.length; k++) spokenAt[src + k] = dst + Math.min(k, Math.max(0, t.reading.length - 1));
    src += t.surface.length;
    dst += t.reading.length;
  }
  spokenAt[Math.min(src, text.length)] = dst;
  return words.map((w) => ({
    word: w.word,
    from: spokenAt[w.from]!,
    to: Math.max(spokenAt[w.from]! + 1, spokenAt[w.to]!),
    textFrom: w.from,
    textTo: w.to,
  }));
}

/** Signs that belong to the word they touch as written ("$3.50", "12%", "20 €" read as one word). */
const SIGN = /[\p{Sc}%]/u;

/** A word without the punctuation around it ("1995." and "(so" as eSpeak spans them); currency and percent signs stay. */
export function cleanWord(raw: string): string {
  const chars = [...raw.trim()];
  let a = 0;
  let b = chars.length;
  while (a < b && !WORD_CHAR.test(chars[a]!) && !SIGN.test(chars[a]!)) a++;
  while (b > a && !WORD_CHAR.test(chars[b - 1]!) && !SIGN.test(chars[b - 1]!)) b--;
  const word = chars.slice(a, b);
  return word.some((c) => WORD_CHAR.test(c)) ? word.join('') : '';
}

/** A word to time, in the engine's text, with the range [srcFrom, srcTo) of the text as written it stands for. */
export interface PlannedWord extends TextWord {
  srcFrom: number;
  srcTo: number;
}

export interface SpokenPlan {
  /** What the engine is given. */
  engineText: string;
  words: PlannedWord[];
}

const ENGLISH = /^en(-|$)/i;

/** `aligned`: the engine reports no word events, so its audio is force-aligned (English). */
export async function spokenPlan(language: string, text: string, aligned: boolean): Promise<SpokenPlan> {
  let said = normalizeMapped(language, text);
  if (aligned && ENGLISH.test(language)) said = spellNumbersEnglish(said);
  const lang = readingLanguage(language, said.text);
  const readings = lang ? await toReadings(lang, said.text) : null;
  const words = textWords(said.text, lang === 'ja' ? readings : null, readings).map((w) => {
    const from = w.textFrom ?? w.from;
    const to = Math.max(from + 1, w.textTo ?? w.to);
    let a = said.from[from] ?? text.length;
    let b = said.to[from] ?? text.length;
    for (let k = from + 1; k < to && k < said.text.length; k++) {
      a = Math.min(a, said.from[k]!);
      b = Math.max(b, said.to[k]!);
    }
    return { ...w, srcFrom: a, srcTo: b };
  });
  return { engineText: readings?.text ?? said.text, words };
}

/**
 * The timed words joined back into the words as written: consecutive words whose written ranges
 * overlap (the words of one rewritten form) become one, spanning all their times.
 */
export function asWritten(text: string, words: PlannedWord[], spans: AlignedSpan[]): { words: TextWord[]; spans: AlignedSpan[] } {
  const outWords: TextWord[] = [];
  const outSpans: AlignedSpan[] = [];
  let groupEnd = -1;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const s = spans[i] ?? null;
    const last = outWords.length - 1;
    if (last >= 0 && w.srcFrom < groupEnd) {
      const prev = outWords[last]!;
      groupEnd = Math.max(groupEnd, w.srcTo);
      outWords[last] = {
        word: text.slice(prev.textFrom!, groupEnd),
        from: prev.from,
        to: w.to,
        textFrom: prev.textFrom!,
        textTo: groupEnd,
      };
      const ps = outSpans[last];
      outSpans[last] = ps && s ? { start: Math.min(ps.start, s.start), end: Math.max(ps.end, s.end) } : (ps ?? s);
      continue;
    }
    groupEnd = w.srcTo;
    outWords.push({ word: text.slice(w.srcFrom, w.srcTo), from: w.from, to: w.to, textFrom: w.srcFrom, textTo: w.srcTo });
    outSpans.push(s);
  }
  return { words: outWords, spans: outSpans };
}
