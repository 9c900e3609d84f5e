// The per-language normalization step before synthesis (issue 29, item 3; docs/tts.md, "Numbers,
// dates and times"): numbers with their notation (times, money, dates, ordinals, decimals,
// counters) and common abbreviations rewritten as a reader of the language says them. Languages
// without rules here go to the engine as written (eSpeak's own rules read plain numbers).

import { normalizeChineseMapped } from './zh.js';
import { normalizeJapaneseMapped } from './ja.js';
import { normalizeWesternMapped, type WesternLanguage } from './western.js';
import { identityMapped, mappedReplace, type MappedText } from './mapped.js';

const WESTERN = new Set<string>(['en', 'es', 'de', 'fr', 'it', 'pt']);

/** The text as it should be spoken in `language` (a catalogue code: en-US, de, ja-JP, cmn...). */
export function normalizeForSpeech(language: string, text: string): string {
  return normalizeMapped(language, text).text;
}

/** The same, with each character's origin in `text` (mapped.ts): word timings are given for the words as written. */
export function normalizeMapped(language: string, text: string): MappedText {
  const base = language.split('-')[0]!.toLowerCase();
  const t = identityMapped(text);
  // Nothing to do without a digit, a currency sign or an abbreviation's dot (most sentences).
  if (base === 'ja') return /[0-9０-９〇一二三四五六七八九十百千万億]/u.test(text) ? normalizeJapaneseMapped(t) : t;
  if (!/[0-9０-９$€£¥￥%％]|\.\s?\p{L}|\p{L}\./u.test(text)) return t;
  if (base === 'zh' || base === 'cmn')
    return normalizeChineseMapped(mappedReplace(t, /[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0)));
  if (WESTERN.has(base)) return normalizeWesternMapped(base as WesternLanguage, t);
  return t;
}
