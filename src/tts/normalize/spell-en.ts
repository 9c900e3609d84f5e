// English numbers written out as words, for word timings (issue 29, item 4). The normalization step
// leaves plain numbers as digits, which each engine reads itself; forced alignment needs the words
// actually said ("1,250" is "one thousand two hundred fifty", four words of audio, not one). For
// an engine that is aligned, both the engine and the aligner get this spelled-out text, so the
// words aligned are exactly the words spoken. No hyphens ("twenty four"): each word is its own.

import { mappedReplace, type MappedText } from './mapped.js';

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
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
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion'];
const ORDINAL_WORDS: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};

function below1000(n: number): string {
  const parts: string[] = [];
  if (n >= 100) parts.push(ONES[Math.floor(n / 100)]!, 'hundred');
  const r = n % 100;
  if (r >= 20) parts.push(TENS[Math.floor(r / 10)]!, ...(r % 10 ? [ONES[r % 10]!] : []));
  else if (r > 0 || n === 0) parts.push(ONES[r]!);
  return parts.join(' ');
}

/** A whole number as said ("one thousand two hundred fifty"); digit by digit past the trillions. */
export function cardinalWords(digits: string): string {
  const s = digits.replace(/^0+(?=\d)/, '');
  if (s.length > 15) return [...s].map((d) => ONES[Number(d)]).join(' ');
  let n = Number(s);
  if (n === 0) return 'zero';
  const groups: string[] = [];
  for (let scale = 0; n > 0; scale++, n = Math.floor(n / 1000)) {
    const g = n % 1000;
    if (g) groups.unshift(`${below1000(g)}${SCALES[scale] ? ` ${SCALES[scale]}` : ''}`);
  }
  return groups.join(' ');
}

/** A year as said: 1995 "nineteen ninety five", 2024 "twenty twenty four", 2005 "two thousand five", 1900 "nineteen hundred". */
function yearWords(y: number): string {
  if (y >= 2000 && y < 2010) return cardinalWords(String(y));
  const hi = Math.floor(y / 100);
  const lo = y % 100;
  return `${below1000(hi)} ${lo === 0 ? 'hundred' : lo < 10 ? `oh ${ONES[lo]}` : below1000(lo)}`;
}

function ordinalWords(n: string): string {
  const words = cardinalWords(n).split(' ');
  const last = words.pop()!;
  const ord = ORDINAL_WORDS[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`);
  return [...words, ord].join(' ');
}

// Linear: each part consumes distinct characters; a number starts only where a digit run starts.
const NUMBER = /(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:(st|nd|rd|th)\b|(\s?%))?/g;

/** Digits in an English text, with their separators, decimals, ordinal endings and percent signs, as words. */
export function spellNumbersEnglish(t: MappedText): MappedText {
  return mappedReplace(
    t,
    NUMBER,
    (_m, whole: string, decimals: string | undefined, ordinal: string | undefined, percent: string | undefined) => {
      const digits = whole.replace(/,/g, '');
      let said: string;
      if (ordinal && decimals === undefined) said = ordinalWords(digits);
      else if (decimals !== undefined) said = `${cardinalWords(digits)} point ${[...decimals].map((d) => ONES[Number(d)]).join(' ')}`;
      else if (!whole.includes(',') && digits.length === 4 && Number(digits) >= 1100 && Number(digits) < 2100)
        said = yearWords(Number(digits));
      else said = cardinalWords(digits);
      return percent ? `${said} percent` : said;
    },
  );
}
