// Japanese numbers with their counters, as a Japanese reader says them (issue 29, item 3): the
// dictionary (kuromoji) reads 3月 as "3 tsuki" and 一人 as "ichinin"; a counter changes the
// number before it (sangatsu, hitori, kuji, juuyokka, roppun). Written out in katakana, which
// eSpeak reads as it is; what is not a number with a counter is left to the dictionary.

const DIGITS = ['ゼロ', 'イチ', 'ニ', 'サン', 'ヨン', 'ゴ', 'ロク', 'ナナ', 'ハチ', 'キュー'];
const KANJI_DIGIT: Record<string, number> = { 〇: 0, 零: 0, 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
const KANJI_UNIT: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };
const KANJI_BIG: Record<string, number> = { 万: 1e4, 億: 1e8 };

/** A run of kanji numerals (三, 十五, 二千二十四, 三万五千) as a number, or null. */
export function kanjiNumber(s: string): number | null {
  let total = 0;
  let section = 0;
  let digit = -1;
  for (const c of s) {
    if (c in KANJI_DIGIT) {
      // 二〇二四: digits one after another are positional.
      digit = digit >= 0 ? digit * 10 + KANJI_DIGIT[c]! : KANJI_DIGIT[c]!;
    } else if (c in KANJI_UNIT) {
      section += (digit >= 0 ? digit : 1) * KANJI_UNIT[c]!;
      digit = -1;
    } else if (c in KANJI_BIG) {
      total += (section + (digit >= 0 ? digit : 0) || 1) * KANJI_BIG[c]!;
      section = 0;
      digit = -1;
    } else return null;
  }
  return total + section + (digit >= 0 ? digit : 0);
}

function under10000(n: number): string {
  const th = Math.floor(n / 1000);
  const hu = Math.floor((n % 1000) / 100);
  const te = Math.floor((n % 100) / 10);
  const on = n % 10;
  let s = '';
  if (th) s += th === 1 ? 'セン' : th === 3 ? 'サンゼン' : th === 8 ? 'ハッセン' : `${DIGITS[th]}セン`;
  if (hu) s += hu === 1 ? 'ヒャク' : hu === 3 ? 'サンビャク' : hu === 6 ? 'ロッピャク' : hu === 8 ? 'ハッピャク' : `${DIGITS[hu]}ヒャク`;
  if (te) s += te === 1 ? 'ジュー' : `${DIGITS[te]}ジュー`;
  if (on) s += DIGITS[on];
  return s;
}

/** A whole number in katakana (ジューゴ, ニセンニジューヨン, イチマン). */
export function numberKana(n: number): string {
  if (!Number.isFinite(n) || n < 0) return String(n);
  if (n === 0) return 'ゼロ';
  let s = '';
  const units: Array<[number, string]> = [
    [1e12, 'チョー'],
    [1e8, 'オク'],
    [1e4, 'マン'],
  ];
  let rest = Math.floor(n);
  for (const [u, name] of units) {
    const q = Math.floor(rest / u);
    if (q) s += (q === 1 ? 'イチ' : under10000(q)) + name;
    rest %= u;
  }
  return s + under10000(rest);
}

/** The last element of a number's reading swapped when a counter changes it (イチ -> イッ). */
function withLast(n: number, changes: Partial<Record<number, string>>, tensChange?: string): string {
  const full = numberKana(n);
  const last = n % 10;
  if (last === 0 && n % 100 !== 0 && tensChange) return full.slice(0, -'ジュー'.length) + tensChange;
  const c = changes[last];
  if (last !== 0 && c !== undefined) return full.slice(0, -DIGITS[last]!.length) + c;
  return full;
}

const SOKUON = { 1: 'イッ', 6: 'ロッ', 8: 'ハッ' };
const DATE_DAYS: Record<number, string> = {
  1: 'ツイタチ',
  2: 'フツカ',
  3: 'ミッカ',
  4: 'ヨッカ',
  5: 'イツカ',
  6: 'ムイカ',
  7: 'ナノカ',
  8: 'ヨーカ',
  9: 'ココノカ',
  10: 'トーカ',
  14: 'ジューヨッカ',
  20: 'ハツカ',
  24: 'ニジューヨッカ',
};

/** The counter's reading of `n` (the number changed where the counter changes it). */
export function counterKana(n: number, counter: string, afterMonth = false): string {
  switch (counter) {
    case '月':
      return `${n === 4 ? 'シ' : n === 7 ? 'シチ' : n === 9 ? 'ク' : numberKana(n)}ガツ`;
    case '日':
      if (n === 1 && !afterMonth) return 'イチニチ';
      return DATE_DAYS[n] ?? `${numberKana(n)}ニチ`;
    case '時':
      return `${withLast(n, { 4: 'ヨ', 7: 'シチ', 9: 'ク' })}ジ`;
    case '時間':
      return `${withLast(n, { 4: 'ヨ', 7: 'シチ', 9: 'ク' })}ジカン`;
    case '分':
      return `${withLast(n, { ...SOKUON, 3: 'サン', 4: 'ヨン' }, 'ジュッ')}${[1, 3, 4, 6, 8].includes(n % 10) || n % 10 === 0 ? 'プン' : 'フン'}`;
    case '人':
      return n === 1 ? 'ヒトリ' : n === 2 ? 'フタリ' : `${withLast(n, { 4: 'ヨ' })}ニン`;
    case '年':
      return `${withLast(n, { 4: 'ヨ', 9: 'キュー' })}ネン`;
    case '円':
      return `${withLast(n, { 4: 'ヨ' })}エン`;
    case '歳':
      return n === 20 ? 'ハタチ' : `${withLast(n, SOKUON, 'ジュッ')}サイ`;
    case '個':
      return `${withLast(n, SOKUON, 'ジュッ')}コ`;
    case '回':
    case '階':
      return `${withLast(n, SOKUON, 'ジュッ')}${counter === '階' && n % 10 === 3 ? 'ガイ' : 'カイ'}`;
    case '冊':
      return `${withLast(n, SOKUON, 'ジュッ')}サツ`;
    case '本':
    case '杯':
    case '匹': {
      const [plain, p, b] =
        counter === '本' ? ['ホン', 'ポン', 'ボン'] : counter === '杯' ? ['ハイ', 'パイ', 'バイ'] : ['ヒキ', 'ピキ', 'ビキ'];
      const last = n % 10;
      const tail = [1, 6, 8].includes(last) || last === 0 ? p : last === 3 ? b : plain;
      return withLast(n, SOKUON, 'ジュッ') + tail;
    }
    case '枚':
      return `${numberKana(n)}マイ`;
    case '台':
      return `${numberKana(n)}ダイ`;
    case '番':
      return `${numberKana(n)}バン`;
    case '度':
      return `${numberKana(n)}ド`;
    case '秒':
      return `${numberKana(n)}ビョー`;
    case '%':
    case '％':
      return `${numberKana(n)}パーセント`;
    default:
      return numberKana(n);
  }
}

// One number (digits with separators and a decimal part, or kanji numerals) and an optional
// counter. Linear: each alternative consumes distinct characters, no nested repetition.
const NUMBER_COUNTER =
  /(?:([0-9０-９][0-9０-９,，]*)(?:[.．]([0-9０-９]+))?|([〇一二三四五六七八九十百千万億]+))(時間|月|日|時|分|秒|人|年|円|歳|個|回|階|冊|本|杯|匹|枚|台|番|度|%|％)?/g;

import { identityMapped, mappedReplace, type MappedText } from './mapped.js';

const toAscii = (s: string) => s.replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0)).replace(/[,，]/g, '');

/** Numbers with counters, decimals and times written out in katakana; everything else as it is. */
export function normalizeJapanese(text: string): string {
  return normalizeJapaneseMapped(identityMapped(text)).text;
}

/** The same, with each character's origin in the text as written (mapped.ts). */
export function normalizeJapaneseMapped(input: MappedText): MappedText {
  // 14:30 -> 14時30分 first, so the counters read it.
  const timed = mappedReplace(input, /(?<![0-9０-９])([0-9０-９]{1,2})[:：]([0-9０-９]{2})(?![0-9０-９])/g, (_m, h: string, m: string) => {
    const min = Number(toAscii(m));
    return `${h}時${min ? `${min}分` : ''}`;
  });
  let prevCounter = '';
  return mappedReplace(
    timed,
    NUMBER_COUNTER,
    (
      whole,
      digits: string | undefined,
      decimals: string | undefined,
      kanji: string | undefined,
      counter: string | undefined,
      offset: number,
    ) => {
      const afterMonth = prevCounter === '月' && offset > 0;
      prevCounter = counter ?? '';
      if (kanji !== undefined) {
        // Kanji numerals alone are words as often as numbers (一緒): only with a counter, and not
        // 分 (十分 is "enough" as often as "ten minutes").
        if (!counter || counter === '分') return whole;
        const n = kanjiNumber(kanji);
        return n === null ? whole : counterKana(n, counter, afterMonth);
      }
      const n = Number(toAscii(digits!));
      if (decimals !== undefined) {
        const frac = [...toAscii(decimals)].map((d) => DIGITS[Number(d)]).join('');
        return `${numberKana(n)}テン${frac}${counter ? counterKana(0, counter).replace(/^ゼロ/, '') : ''}`;
      }
      return counter ? counterKana(n, counter, afterMonth) : whole;
    },
  );
}
