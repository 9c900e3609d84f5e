// Chinese numbers where eSpeak's Mandarin reading loses or misreads them (issue 29, item 3):
// eSpeak reads 3.5元 "sān wǔ yuán" (the point lost), 2:30 digit by digit, a year as a quantity.
// Written out here with the hanzi a reader says (三点五元, 两点三十分, 二〇二四年); whole numbers
// stay digits, which eSpeak reads as quantities with the right tones.

import { identityMapped, mappedReplace, type MappedText } from './mapped.js';

const HANZI_DIGIT = '零一二三四五六七八九';
const digitsHanzi = (s: string) => [...s].map((d) => HANZI_DIGIT[Number(d)]).join('');
const CURRENCY: Record<string, string> = { '¥': '元', '￥': '元', $: '美元', '€': '欧元', '£': '英镑' };

/** Hours and minutes: 2:30 -> 2点30分, 14:05 -> 14点零5分, 9:00 -> 9点. */
function time(h: string, m: string): string {
  const hour = Number(h) === 2 ? '两' : h;
  const min = Number(m);
  return `${hour}点${min === 0 ? '' : `${m.startsWith('0') ? '零' : ''}${min}分`}`;
}

export function normalizeChinese(text: string): string {
  return normalizeChineseMapped(identityMapped(text)).text;
}

/** The same, with each character's origin in the text as written (mapped.ts). */
export function normalizeChineseMapped(input: MappedText): MappedText {
  let t = input;
  const rep = (re: RegExp, fn: (m: string, ...rest: never[]) => string) => {
    t = mappedReplace(t, re, fn);
  };
  // Years: 2024年 is said digit by digit.
  rep(/(?<![0-9])([0-9]{4})年/g, (_m, y: string) => `${digitsHanzi(y)}年`);
  // Dates 2024-03-15, 2024/3/15.
  rep(
    /(?<![0-9])([0-9]{4})[-/]([0-9]{1,2})[-/]([0-9]{1,2})(?![0-9])/g,
    (_m, y: string, mo: string, d: string) => `${digitsHanzi(y)}年${Number(mo)}月${Number(d)}日`,
  );
  rep(/(?<![0-9])([0-9]{1,2})[:：]([0-9]{2})(?![0-9])/g, (_m, h: string, m: string) => time(h, m));
  // Currency signs before the amount: ¥3.5 -> 3.5元.
  rep(/([¥￥$€£])\s?([0-9][0-9,]*(?:\.[0-9]+)?)/g, (_m, sign: string, amount: string) => `${amount}${CURRENCY[sign]}`);
  rep(/(?<![0-9,.])([0-9][0-9,]*(?:\.[0-9]+)?)\s?[%％]/g, (_m, n: string) => `百分之${n}`);
  // Thousands separators, then decimals: 3.5 -> 3点五 (the fraction digit by digit).
  rep(/(?<=[0-9]),(?=[0-9]{3})/g, () => '');
  rep(/(?<![0-9.])([0-9]+)\.([0-9]+)/g, (_m, i: string, f: string) => `${i}点${digitsHanzi(f)}`);
  return t;
}
