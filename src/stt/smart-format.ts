// smart_format: spoken numbers, ordinals, currency, percentages, dates and times written as
// digits and symbols ("twenty five dollars" -> "$25"), on word tokens so that timings survive:
// a merged token starts where its first word starts and ends where its last word ends.
//
// Style rules (documented in docs/stt.md): cardinals from ten up become digits; one to nine stay
// words unless they are part of an amount, a percentage, a time or a date ("one of the best" stays).
// Ordinals first to ninth alone stay words ("the first time", "wait a second"). Hour and minutes
// without a.m./p.m. are a time only after at/by/until/...; paired years only for 1700-2099.

import type { WordTiming } from '../engines/engine.js';
import { table } from '../domain/lookup.js';

const UNITS: Record<string, number> = table({
  zero: 0,
  oh: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
});
const TENS: Record<string, number> = table({
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
});
const SCALES: Record<string, number> = table({ thousand: 1e3, million: 1e6, billion: 1e9 });
const ORDINAL_UNITS: Record<string, number> = table({
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
});
const ORDINAL_TENS: Record<string, number> = table({
  twentieth: 20,
  thirtieth: 30,
  fortieth: 40,
  fiftieth: 50,
  sixtieth: 60,
  seventieth: 70,
  eightieth: 80,
  ninetieth: 90,
});
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const CURRENCIES: Record<string, { symbol: string; minor?: string }> = {
  dollar: { symbol: '$', minor: 'cent' },
  dollars: { symbol: '$', minor: 'cent' },
  euro: { symbol: '€', minor: 'cent' },
  euros: { symbol: '€', minor: 'cent' },
  pound: { symbol: '£', minor: 'pence' },
  pounds: { symbol: '£', minor: 'pence' },
};

interface Parsed {
  value: number;
  /** Tokens consumed. */
  n: number;
  ordinal: boolean;
}

const lower = (w: WordTiming | undefined) => w?.word.toLowerCase() ?? '';

/** Below one thousand: "two hundred and five", "ninety nine", "twenty first". */
function parseBelowThousand(words: WordTiming[], i: number): Parsed | null {
  let j = i;
  let value = 0;
  let any = false;
  const w0 = lower(words[j]);
  if ((UNITS[w0] !== undefined || w0 === 'a') && lower(words[j + 1]) === 'hundredth') {
    return { value: (w0 === 'a' ? 1 : UNITS[w0]!) * 100, n: 2, ordinal: true };
  }
  if ((UNITS[w0] !== undefined || w0 === 'a') && lower(words[j + 1]) === 'hundred') {
    value = (w0 === 'a' ? 1 : UNITS[w0]!) * 100;
    j += 2;
    any = true;
    if (
      lower(words[j]) === 'and' &&
      (UNITS[lower(words[j + 1])] !== undefined ||
        TENS[lower(words[j + 1])] !== undefined ||
        ORDINAL_UNITS[lower(words[j + 1])] !== undefined)
    )
      j++;
  }
  const w = lower(words[j]);
  if (TENS[w] !== undefined) {
    value += TENS[w]!;
    j++;
    any = true;
    const u = lower(words[j]);
    if (UNITS[u] !== undefined && UNITS[u]! > 0 && UNITS[u]! < 10 && u !== 'oh') {
      value += UNITS[u]!;
      j++;
    } else if (ORDINAL_UNITS[u] !== undefined && ORDINAL_UNITS[u]! < 10) {
      return { value: value + ORDINAL_UNITS[u]!, n: j + 1 - i, ordinal: true };
    }
  } else if (UNITS[w] !== undefined && w !== 'oh') {
    value += UNITS[w]!;
    j++;
    any = true;
  } else if (ORDINAL_UNITS[w] !== undefined) {
    return { value: value + ORDINAL_UNITS[w]!, n: j + 1 - i, ordinal: true };
  } else if (ORDINAL_TENS[w] !== undefined) {
    return { value: value + ORDINAL_TENS[w]!, n: j + 1 - i, ordinal: true };
  }
  return any ? { value, n: j - i, ordinal: false } : null;
}

export function parseNumber(words: WordTiming[], i: number): Parsed | null {
  let total = 0;
  let j = i;
  let any = false;
  // "a thousand", "a million": the article stands for one only right before a scale word.
  const scaleAfterA = lower(words[i]) === 'a' ? SCALES[lower(words[i + 1])] : undefined;
  if (scaleAfterA !== undefined) {
    total = scaleAfterA;
    j = i + 2;
    any = true;
    if (lower(words[j]) === 'and' && (parseBelowThousand(words, j + 1)?.value ?? 100) < 100) j++;
  }
  for (;;) {
    const part = parseBelowThousand(words, j);
    if (!part) break;
    any = true;
    j += part.n;
    if (part.ordinal) return { value: total + part.value, n: j - i, ordinal: true };
    const scale = SCALES[lower(words[j])];
    if (scale !== undefined) {
      total += part.value * scale;
      j++;
      if (lower(words[j]) === 'and') {
        const next = parseBelowThousand(words, j + 1);
        if (next && next.value < 100) j++;
      }
      continue;
    }
    total += part.value;
    break;
  }
  return any ? { value: total, n: j - i, ordinal: false } : null;
}

/** Spoken years: "nineteen ninety nine", "twenty twenty four", "nineteen oh five", "two thousand five". */
function parseYear(words: WordTiming[], i: number): Parsed | null {
  const a = lower(words[i]);
  const hi = UNITS[a] !== undefined && UNITS[a]! >= 10 ? UNITS[a]! : TENS[a];
  if (hi !== undefined && hi >= 10 && hi <= 29) {
    const b = lower(words[i + 1]);
    if (b === 'hundred') return { value: hi * 100, n: 2, ordinal: false };
    if (b === 'oh' && UNITS[lower(words[i + 2])] !== undefined)
      return { value: hi * 100 + UNITS[lower(words[i + 2])]!, n: 3, ordinal: false };
    if (TENS[b] !== undefined || (UNITS[b] !== undefined && UNITS[b]! >= 10)) {
      const lo = parseBelowThousand(words, i + 1);
      if (lo && !lo.ordinal && lo.value >= 10 && lo.value < 100) return { value: hi * 100 + lo.value, n: 1 + lo.n, ordinal: false };
    }
  }
  const n = parseNumber(words, i);
  return n && !n.ordinal && n.value >= 1000 && n.value <= 2999 ? n : null;
}

function ordinalSuffix(n: number): string {
  const t = n % 100;
  if (t >= 11 && t <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
}

/**
 * A number with a spoken decimal part: "three point five", "one point two five million"
 * (a scale after a decimal stays a word: "1.5 million"). Null without "point <digit>".
 */
function parseDecimal(words: WordTiming[], i: number): { n: number; text: string } | null {
  const num = parseNumber(words, i);
  if (!num || num.ordinal || lower(words[i + num.n]) !== 'point') return null;
  let k = i + num.n + 1;
  let digits = '';
  while (UNITS[lower(words[k])] !== undefined && UNITS[lower(words[k])]! < 10) digits += String(UNITS[lower(words[k++])]);
  if (!digits) return null;
  let text = `${num.value}.${digits}`;
  const scale = lower(words[k]);
  if (scale === 'million' || scale === 'billion') {
    text += ` ${scale}`;
    k++;
  }
  return { n: k - i, text };
}

function merge(words: WordTiming[], i: number, n: number, text: string): WordTiming {
  const span = words.slice(i, i + n);
  const conf = span.map((w) => w.confidence).filter((c): c is number => c !== undefined);
  return {
    word: text,
    start: span[0]!.start,
    end: span[span.length - 1]!.end,
    ...(conf.length ? { confidence: +(conf.reduce((a, b) => a + b, 0) / conf.length).toFixed(3) } : {}),
  };
}

type Matcher = (words: WordTiming[], i: number) => { n: number; text: string } | null;

const matchDate: Matcher = (words, i) => {
  const month = MONTHS.indexOf(lower(words[i]));
  if (month < 0) return null;
  const day = parseNumber(words, i + 1);
  if (!day || day.value < 1 || day.value > 31) return null;
  let n = 1 + day.n;
  const name = MONTHS[month]![0]!.toUpperCase() + MONTHS[month]!.slice(1);
  const year = parseYear(words, i + n);
  if (year) return { n: n + year.n, text: `${name} ${day.value}, ${year.value}` };
  // "june first" is a date; "march ten" / "may five" without ordinal or year is too ambiguous
  // (the verbs "march" and "may"; people say "march tenth" for the date).
  if (!day.ordinal) return null;
  n = 1 + day.n;
  return { n, text: `${name} ${day.value}` };
};

const TIME_INTRODUCERS = new Set(['at', 'by', 'until', 'till', 'around', 'before', 'after', 'from']);

const matchTime: Matcher = (words, i) => {
  const h = parseBelowThousand(words, i);
  if (!h || h.ordinal || h.value < 1 || h.value > 12) return null;
  let j = i + h.n;
  let minutes = 0;
  const next = lower(words[j]);
  if (next === "o'clock") return { n: j + 1 - i, text: `${h.value}:00` };
  if (next === 'oh' && UNITS[lower(words[j + 1])] !== undefined) {
    minutes = UNITS[lower(words[j + 1])]!;
    j += 2;
  } else {
    const m = parseBelowThousand(words, j);
    if (m && !m.ordinal && m.value >= 10 && m.value < 60) {
      minutes = m.value;
      j += m.n;
    }
  }
  const a = lower(words[j]);
  const b = lower(words[j + 1]);
  let meridiem: string | null = null;
  if ((a === 'a' || a === 'p') && b === 'm') {
    meridiem = a === 'a' ? 'AM' : 'PM';
    j += 2;
  } else if (a === 'am' || a === 'pm' || a === 'a.m.' || a === 'p.m.') {
    meridiem = a.startsWith('a') ? 'AM' : 'PM';
    j += 1;
  } else if (a === "o'clock" && minutes === 0) {
    return { n: j + 1 - i, text: `${h.value}:00` };
  }
  if (!meridiem) {
    // Without a.m./p.m., hour and minutes read as a time only after a word that introduces one.
    const saidMinutes = j > i + h.n;
    return saidMinutes && TIME_INTRODUCERS.has(lower(words[i - 1]))
      ? { n: j - i, text: `${h.value}:${String(minutes).padStart(2, '0')}` }
      : null;
  }
  return { n: j - i, text: `${h.value}:${String(minutes).padStart(2, '0')} ${meridiem}` };
};

function formatAmount(v: number): string {
  return v.toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: Number.isInteger(v) ? 0 : 2 });
}

const matchCurrency: Matcher = (words, i) => {
  const dec = parseDecimal(words, i);
  if (dec) {
    const cur = CURRENCIES[lower(words[i + dec.n])];
    return cur ? { n: dec.n + 1, text: `${cur.symbol}${dec.text}` } : null;
  }
  const major = parseNumber(words, i);
  if (!major || major.ordinal) return null;
  const cur = CURRENCIES[lower(words[i + major.n])];
  if (!cur) {
    // "fifty cents" alone.
    const unit = lower(words[i + major.n]);
    if ((unit === 'cents' || unit === 'cent') && major.value < 100) return { n: major.n + 1, text: `$${(major.value / 100).toFixed(2)}` };
    return null;
  }
  let n = major.n + 1;
  let value = major.value;
  if (lower(words[i + n]) === 'and') {
    const minor = parseNumber(words, i + n + 1);
    const unit = lower(words[i + n + 1 + (minor?.n ?? 0)]);
    if (minor && minor.value < 100 && cur.minor && unit.startsWith(cur.minor)) {
      value += minor.value / 100;
      n += 2 + minor.n;
    }
  }
  return { n, text: `${cur.symbol}${formatAmount(value)}` };
};

const matchPercent: Matcher = (words, i) => {
  const dec = parseDecimal(words, i);
  const num = dec ? null : parseNumber(words, i);
  if (!dec && (!num || num.ordinal)) return null;
  const n = dec ? dec.n : num!.n;
  return lower(words[i + n]) === 'percent' ? { n: n + 1, text: `${dec ? dec.text : num!.value}%` } : null;
};

/** A year said in pairs outside a date: "nineteen eighty four" -> 1984, "twenty twenty four" -> 2024. */
const matchYear: Matcher = (words, i) => {
  const a = lower(words[i]);
  const hi = UNITS[a] ?? (a === 'twenty' ? 20 : undefined);
  // Only 1700-2099: earlier centuries are rare in speech and "twelve thirty" is more likely a time.
  if (hi === undefined || hi < 17 || hi > 20) return null;
  const year = parseYear(words, i);
  return year && year.value % 100 !== 0 && year.n >= 2 ? { n: year.n, text: String(year.value) } : null;
};

const matchDecimal: Matcher = (words, i) => parseDecimal(words, i);

const matchNumber: Matcher = (words, i) => {
  const num = parseNumber(words, i);
  if (!num) return null;
  if (num.ordinal) return num.value >= 10 || num.n > 1 ? { n: num.n, text: `${num.value}${ordinalSuffix(num.value)}` } : null;
  if (num.value < 10 && num.n === 1) return null;
  return { n: num.n, text: num.value >= 10000 ? num.value.toLocaleString('en-US') : String(num.value) };
};

const MATCHERS: Matcher[] = [matchDate, matchTime, matchCurrency, matchPercent, matchYear, matchDecimal, matchNumber];

export function smartFormat(words: WordTiming[]): WordTiming[] {
  const out: WordTiming[] = [];
  for (let i = 0; i < words.length; ) {
    let hit: { n: number; text: string } | null = null;
    for (const m of MATCHERS) {
      hit = m(words, i);
      if (hit) break;
    }
    if (hit) {
      out.push(merge(words, i, hit.n, hit.text));
      i += hit.n;
    } else {
      out.push(words[i]!);
      i++;
    }
  }
  return out;
}
