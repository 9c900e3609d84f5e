// Worker side of the CJK readings: Japanese to katakana as spoken (kuromoji, IPADIC dictionary),
// Korean hanja to hangul (hanja). eSpeak reads kana and hangul but says "Chinese letter" for
// every kanji or hanja, so these run before synthesis. Loaded on first use only: the Japanese
// dictionary takes ~0.6 s and ~400 MB, which no non-Japanese request should pay.

import { createRequire } from 'node:module';
import path from 'node:path';
import type { Tokenizer } from 'kuromoji';
import type { Readings, ReadingLanguage, ReadingToken } from './types.js';

let tokenizer: Promise<Tokenizer> | null = null;

function japaneseTokenizer(): Promise<Tokenizer> {
  tokenizer ??= (async () => {
    const kuromoji = (await import('kuromoji')).default;
    const dicPath = path.join(path.dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')), 'dict');
    return new Promise<Tokenizer>((resolve, reject) => kuromoji.builder({ dicPath }).build((err, t) => (err ? reject(err) : resolve(t))));
  })();
  tokenizer.catch(() => (tokenizer = null));
  return tokenizer;
}

/** Whether this thread has loaded the Japanese dictionary (tests check which thread does). */
export function japaneseLoadedInThisThread(): boolean {
  return tokenizer !== null;
}

/** Longest piece handed to the analyser at once. */
const MAX_PIECE = 128;
const BREAKS = new Set(['。', '！', '？', '!', '?', '\n', '、', '，', ',', ' ', '　']);

/**
 * Pieces of at most MAX_PIECE characters, cut after punctuation or spaces where there is one. Why:
 * kuromoji groups a run of unknown characters of one class (katakana, Latin) from every position
 * of the run, quadratic in the run's length; bounded pieces keep the whole conversion linear.
 */
export function analyserPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let lastBreak = -1;
  for (let i = 0; i < text.length; i++) {
    if (BREAKS.has(text[i]!)) lastBreak = i + 1;
    if (i + 1 - start >= MAX_PIECE) {
      let end = lastBreak > start ? lastBreak : i + 1;
      // Never between the halves of a surrogate pair.
      if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end]!)) end--;
      pieces.push(text.slice(start, end));
      start = end;
      lastBreak = -1;
    }
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

const spoken = (s: string | undefined): s is string => s !== undefined && s !== '' && s !== '*';

export async function japaneseReadings(text: string): Promise<Readings> {
  const t = await japaneseTokenizer();
  const tokens: ReadingToken[] = [];
  for (const piece of analyserPieces(text)) {
    for (const tok of t.tokenize(piece)) {
      // The pronunciation is what eSpeak should say (particle は is ワ, 東京 is トーキョー);
      // words the dictionary does not know (Latin, digits, symbols) pass through.
      const reading = spoken(tok.pronunciation) ? tok.pronunciation : spoken(tok.reading) ? tok.reading : tok.surface_form;
      tokens.push({ surface: tok.surface_form, reading });
    }
  }
  return { text: tokens.map((t) => t.reading).join(''), tokens };
}

type HanjaModule = { translate(text: string, mode: 'SUBSTITUTION'): string; split(text: string): string[] };
let hanja: HanjaModule | null = null;

export function koreanReadings(text: string): Readings {
  // A CommonJS module whose functions sit on `exports.default`: required, so that compiled ESM and
  // tsx see the same object.
  hanja ??= (createRequire(import.meta.url)('hanja') as { default: HanjaModule }).default;
  const h = hanja;
  // Runs of hanja and of everything else, each with its hangul (the rest stays as it is). Each run
  // is translated on its own, so the initial-sound rule (리 -> 이) applies where a hanja word starts.
  const tokens = h.split(text).map((part) => ({ surface: part, reading: h.translate(part, 'SUBSTITUTION') }));
  return { text: tokens.map((t) => t.reading).join(''), tokens };
}

export async function convertReadings(p: { language: ReadingLanguage; text: string }): Promise<Readings> {
  return p.language === 'ja' ? japaneseReadings(p.text) : koreanReadings(p.text);
}
