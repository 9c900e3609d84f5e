// Times, money, dates, ordinals and common abbreviations in English, Spanish, German, French,
// Italian and Portuguese, rewritten as a person reads them (issue 29, item 3). eSpeak and Flite
// read whole numbers and decimals well in each of these languages ("3,5" -> "drei Komma fünf"),
// so numbers stay digits; what they get wrong is the notation around them: "14:30 Uhr" was "...
// dreißig Uhr Uhr", "14h30" "quatorze ache trente", "3,50 €" "drei Komma fünf null Euro",
// "3. Mai" "drei Mai", "12/03/2024" "twelve slash zero three...". Every pattern is a regular
// expression without nested repetition (linear on hostile text).

import { identityMapped, mappedReplace, type MappedText } from './mapped.js';

export type WesternLanguage = 'en' | 'es' | 'de' | 'fr' | 'it' | 'pt';

const MONTHS: Record<WesternLanguage, string[]> = {
  en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  es: ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'],
  de: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
  fr: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
  it: ['gennaio', 'febbraio', 'marzo', 'aprile', 'maggio', 'giugno', 'luglio', 'agosto', 'settembre', 'ottobre', 'novembre', 'dicembre'],
  pt: ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro'],
};

// ---------------------------------------------------------------- ordinals
const DE_CARDINAL = [
  '',
  'ein',
  'zwei',
  'drei',
  'vier',
  'fünf',
  'sechs',
  'sieben',
  'acht',
  'neun',
  'zehn',
  'elf',
  'zwölf',
  'dreizehn',
  'vierzehn',
  'fünfzehn',
  'sechzehn',
  'siebzehn',
  'achtzehn',
  'neunzehn',
];
const DE_TENS = ['', '', 'zwanzig', 'dreißig', 'vierzig', 'fünfzig', 'sechzig', 'siebzig', 'achtzig', 'neunzig'];

/** German ordinal stem for 1-99 (erst, zweit, dritt, ..., zwanzigst): the ending follows the case. */
function germanOrdinalStem(n: number): string | null {
  if (n < 1 || n > 99) return null;
  if (n < 20) return n === 1 ? 'erst' : n === 3 ? 'dritt' : n === 7 ? 'sieb' + 't' : n === 8 ? 'acht' : `${DE_CARDINAL[n]}t`;
  const ones = n % 10;
  return `${ones ? `${DE_CARDINAL[ones]}und` : ''}${DE_TENS[Math.floor(n / 10)]}st`;
}

const FR_UNITS = [
  '',
  'un',
  'deux',
  'trois',
  'quatre',
  'cinq',
  'six',
  'sept',
  'huit',
  'neuf',
  'dix',
  'onze',
  'douze',
  'treize',
  'quatorze',
  'quinze',
  'seize',
];
const FR_TENS = ['', 'dix', 'vingt', 'trente', 'quarante', 'cinquante', 'soixante'];

function frenchCardinal(n: number): string {
  if (n <= 16) return FR_UNITS[n]!;
  if (n < 20) return `dix-${FR_UNITS[n - 10]}`;
  if (n < 70) {
    const t = Math.floor(n / 10);
    const u = n % 10;
    return u === 0 ? FR_TENS[t]! : u === 1 ? `${FR_TENS[t]} et un` : `${FR_TENS[t]}-${FR_UNITS[u]}`;
  }
  if (n < 80) return n === 71 ? 'soixante et onze' : `soixante-${frenchCardinal(n - 60)}`;
  return n === 80 ? 'quatre-vingts' : `quatre-vingt-${frenchCardinal(n - 80)}`;
}

/** French ordinal for 2-99 (deuxième, cinquième, neuvième, vingt et unième). */
function frenchOrdinal(n: number): string | null {
  if (n < 2 || n > 99) return null;
  const c = frenchCardinal(n).replace(/quatre-vingts$/, 'quatre-vingt');
  if (c.endsWith('cinq')) return `${c}uième`;
  if (c.endsWith('neuf')) return `${c.slice(0, -1)}vième`;
  if (c.endsWith('e')) return `${c.slice(0, -1)}ième`;
  return `${c}ième`;
}

const ROMANCE_ORDINALS: Record<'es' | 'it' | 'pt', string[]> = {
  es: ['', 'primer', 'segund', 'tercer', 'cuart', 'quint', 'sext', 'séptim', 'octav', 'noven', 'décim'],
  it: ['', 'prim', 'second', 'terz', 'quart', 'quint', 'sest', 'settim', 'ottav', 'non', 'decim'],
  pt: ['', 'primeir', 'segund', 'terceir', 'quart', 'quint', 'sext', 'sétim', 'oitav', 'non', 'décim'],
};

// ---------------------------------------------------------------- money
interface Money {
  /** Major unit, singular and plural; minor unit (or '' to say the cents as a bare number). */
  one: string;
  many: string;
  minorOne?: string;
  minorMany?: string;
}
const MONEY: Record<WesternLanguage, Record<string, Money>> = {
  en: {
    $: { one: 'dollar', many: 'dollars', minorOne: 'cent', minorMany: 'cents' },
    '€': { one: 'euro', many: 'euros', minorOne: 'cent', minorMany: 'cents' },
    '£': { one: 'pound', many: 'pounds', minorOne: 'penny', minorMany: 'pence' },
  },
  es: { $: { one: 'dólar', many: 'dólares' }, '€': { one: 'euro', many: 'euros' }, '£': { one: 'libra', many: 'libras' } },
  de: { $: { one: 'Dollar', many: 'Dollar' }, '€': { one: 'Euro', many: 'Euro' }, '£': { one: 'Pfund', many: 'Pfund' } },
  fr: { $: { one: 'dollar', many: 'dollars' }, '€': { one: 'euro', many: 'euros' }, '£': { one: 'livre', many: 'livres' } },
  it: { $: { one: 'dollaro', many: 'dollari' }, '€': { one: 'euro', many: 'euro' }, '£': { one: 'sterlina', many: 'sterline' } },
  pt: {
    $: { one: 'dólar', many: 'dólares' },
    R$: { one: 'real', many: 'reais', minorOne: 'centavo', minorMany: 'centavos' },
    '€': { one: 'euro', many: 'euros', minorOne: 'cêntimo', minorMany: 'cêntimos' },
    '£': { one: 'libra', many: 'libras' },
  },
};
/** How the cents join the units: "3 euros con 50", "3 Euro 50", "3 dollars and 50 cents". */
const MONEY_JOIN: Record<WesternLanguage, string> = { en: ' and ', es: ' con ', de: ' ', fr: ' ', it: ' e ', pt: ' e ' };

function sayMoney(lang: WesternLanguage, sign: string, units: string, cents: string | undefined): string | null {
  const m = MONEY[lang][sign === 'EUR' || sign === 'Euro' || sign === 'euros' ? '€' : sign];
  if (!m) return null;
  const whole = units.replace(/[.,\s'’]/g, '');
  const n = Number(whole);
  const c = cents === undefined ? 0 : Number(cents.padEnd(2, '0'));
  // Spanish and Portuguese say "un euro", "um real", not "uno".
  const numberWord =
    n === 1 && lang === 'es' ? 'un' : n === 1 && lang === 'pt' && m.one === 'real' ? 'um' : n === 1 && lang === 'it' ? 'un' : whole;
  let s = `${numberWord} ${n === 1 ? m.one : m.many}`;
  if (c) s += `${MONEY_JOIN[lang]}${c}${m.minorOne ? ` ${c === 1 ? m.minorOne : m.minorMany}` : ''}`;
  return s;
}

// ---------------------------------------------------------------- abbreviations
const ABBREVIATIONS: Record<WesternLanguage, Array<[RegExp, string]>> = {
  en: [
    [/\bDr\.(?=\s+\p{Lu})/gu, 'Doctor'],
    [/\bMr\.(?=\s)/g, 'Mister'],
    [/\bMrs\.(?=\s)/g, 'Missus'],
    [/\be\.g\.(?=\s|,|$)/g, 'for example'],
    [/\bi\.e\.(?=\s|,|$)/g, 'that is'],
    [/\betc\./g, 'et cetera'],
    [/\bvs\.(?=\s)/g, 'versus'],
    [/\bNo\.(?=\s*\d)/g, 'number'],
  ],
  es: [
    [/\bSr\.(?=\s)/g, 'señor'],
    [/\bSra\.(?=\s)/g, 'señora'],
    [/\bDr\.(?=\s)/g, 'doctor'],
    [/\bDra\.(?=\s)/g, 'doctora'],
    [/\bUd\.(?=\s|,|$)/g, 'usted'],
    [/\bEE\.\s?UU\./g, 'Estados Unidos'],
    [/\betc\./g, 'etcétera'],
  ],
  de: [
    [/\bz\.\s?B\./g, 'zum Beispiel'],
    [/\bd\.\s?h\./g, 'das heißt'],
    [/\busw\./g, 'und so weiter'],
    [/\bbzw\./g, 'beziehungsweise'],
    [/\bca\.(?=\s)/g, 'circa'],
    [/\bDr\.(?=\s)/g, 'Doktor'],
    [/\bNr\.(?=\s*\d)/g, 'Nummer'],
  ],
  fr: [
    [/\bM\.(?=\s+\p{Lu})/gu, 'Monsieur'],
    [/\bMme(?=\s)/g, 'Madame'],
    [/\bDr(?=\s+\p{Lu})/gu, 'Docteur'],
    [/\bp\.\s?ex\./g, 'par exemple'],
    [/\betc\./g, 'et cetera'],
  ],
  it: [
    [/\bSig\.(?=\s)/g, 'signor'],
    [/\bSig\.ra(?=\s)/g, 'signora'],
    [/\bDott\.(?=\s)/g, 'dottor'],
    [/\becc\./g, 'eccetera'],
  ],
  pt: [
    [/\bSr\.(?=\s)/g, 'senhor'],
    [/\bSra\.(?=\s)/g, 'senhora'],
    [/\bDr\.(?=\s)/g, 'doutor'],
    [/\bDra\.(?=\s)/g, 'doutora'],
    [/\betc\./g, 'et cetera'],
  ],
};

// ---------------------------------------------------------------- the rules
// 14:30 everywhere; 14h30 and 14h where people write them (French, Portuguese).
const TIME = /(?<![\d:.,])([01]?\d|2[0-3])(?::(\d{2})|h(\d{2})?)(?![\d:\p{L}])/gu;

function sayTime(lang: WesternLanguage, h: string, m: string | undefined): string {
  const hour = Number(h);
  const min = m === undefined ? 0 : Number(m);
  switch (lang) {
    case 'de':
      return `${hour} Uhr${min ? ` ${min}` : ''}`;
    case 'fr':
      return `${hour} ${hour <= 1 ? 'heure' : 'heures'}${min ? ` ${min}` : ''}`;
    case 'pt':
      return `${hour} ${hour <= 1 ? 'hora' : 'horas'}${min ? ` e ${min}` : ''}`;
    case 'es':
      return min ? `${hour} y ${min}` : `${hour} en punto`;
    case 'it':
      return min ? `${hour} e ${min}` : `${hour}`;
    case 'en':
      return min ? `${hour} ${m!.startsWith('0') ? `oh ${min}` : min}` : `${hour} o'clock`;
  }
}

function sayDate(lang: WesternLanguage, a: number, b: number, year: string | undefined, before: string): string | null {
  // en-US writes month/day; everyone else here day/month.
  const [day, month] = lang === 'en' ? [b, a] : [a, b];
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const name = MONTHS[lang][month - 1]!;
  // English says a year in pairs (twenty twenty-four); 2000-2009 as a number.
  const y = !year ? '' : lang === 'en' && Number(year) % 100 >= 10 ? ` ${year.slice(0, 2)} ${year.slice(2)}` : ` ${year}`;
  switch (lang) {
    case 'en':
      return `${name} ${day}${['th', 'st', 'nd', 'rd'][day % 10 < 4 && Math.floor(day / 10) !== 1 ? day % 10 : 0]}${year ? `,${y}` : ''}`;
    case 'de':
      return `${germanOrdinalStem(day)}${/\b(?:am|vom|zum|bis zum|seit dem|ab dem|den)\s*$/i.test(before) ? 'en' : 'er'} ${name}${y}`;
    case 'fr':
      return `${day === 1 ? 'premier' : day} ${name}${y}`;
    case 'it':
      return `${day === 1 ? 'primo' : day} ${name}${y}`;
    case 'es':
      return `${day} de ${name}${year ? ` de ${year}` : ''}`;
    case 'pt':
      return `${day === 1 ? 'primeiro' : day} de ${name}${year ? ` de ${year}` : ''}`;
  }
}

export function normalizeWestern(lang: WesternLanguage, text: string): string {
  return normalizeWesternMapped(lang, identityMapped(text)).text;
}

/** The same, with each character's origin in the text as written (mapped.ts). */
export function normalizeWesternMapped(lang: WesternLanguage, input: MappedText): MappedText {
  let t = input;
  const rep = (re: RegExp, fn: (m: string, ...rest: never[]) => string) => {
    t = mappedReplace(t, re, fn);
  };
  for (const [re, word] of ABBREVIATIONS[lang]) rep(re, () => word);

  // Money: sign before (€3,50, $3.50, R$ 3,50) or after (3,50 €, 3,50 EUR, 3,50 Euro).
  const dec = lang === 'en' ? '\\.' : ',';
  const grp = lang === 'en' ? ',' : '[.\\s]';
  // Starts only where a digit run starts: tried from inside a run, `\\d+` would backtrack over
  // the whole run at every position (quadratic on a long run of digits).
  const amount = `(?<![\\d.,])(\\d{1,3}(?:${grp}\\d{3})+|\\d+)(?:${dec}(\\d{1,2}))?(?!\\d)`;
  rep(
    new RegExp(`(R\\$|[$€£])\\s?${amount}`, 'g'),
    (m, sign: string, units: string, cents?: string) => sayMoney(lang, sign, units, cents) ?? m,
  );
  rep(
    new RegExp(`${amount}\\s?(€|EUR\\b|Euro\\b|euros\\b|\\$|£)`, 'g'),
    (m, units: string, cents: string | undefined, sign: string) => sayMoney(lang, sign, units, cents) ?? m,
  );

  // Numeric dates: 15/03/2024, 15.03.2024, 3/15 (en).
  rep(
    /(?<![\d/.])(\d{1,2})([/.])(\d{1,2})\2(\d{4})(?![\d/])/g,
    (m, a: string, _sep: string, b: string, y: string, offset: number, all: string) =>
      sayDate(lang, Number(a), Number(b), y, all.slice(Math.max(0, offset - 12), offset)) ?? m,
  );

  // German "3. Mai" (an ordinal before a month name).
  if (lang === 'de') {
    const months = MONTHS.de.join('|');
    rep(new RegExp(`(?<![\\d.])(\\d{1,2})\\.\\s(?=(?:${months})\\b)`, 'g'), (m, d: string, offset: number, all: string) => {
      const stem = germanOrdinalStem(Number(d));
      return stem
        ? `${stem}${/\b(?:am|vom|zum|bis zum|seit dem|ab dem|den)\s*$/i.test(all.slice(Math.max(0, offset - 12), offset)) ? 'en' : 'er'} `
        : m;
    });
  }

  // Times: 14:30, 14h30, 14h; German "14:30 Uhr" said once.
  if (lang === 'de')
    rep(/(?<![\d:.,])([01]?\d|2[0-3]):(\d{2})(?![\d:])(\s*Uhr\b)?/g, (_m, h: string, min: string) => sayTime(lang, h, min));
  else {
    rep(TIME, (m, h: string, colon: string | undefined, afterH: string | undefined) => {
      if (colon === undefined && lang !== 'fr' && lang !== 'pt') return m;
      return sayTime(lang, h, colon ?? afterH);
    });
  }

  // Written ordinals.
  if (lang === 'fr') {
    rep(/(?<!\d)1(er|re|ère)(?!\p{L})/gu, (_m, s: string) => (s === 'er' ? 'premier' : 'première'));
    rep(/(?<!\d)(\d{1,2})(?:e|ème|ième)(?!\p{L})/gu, (m, n: string) => frenchOrdinal(Number(n)) ?? m);
  } else if (lang === 'es' || lang === 'it' || lang === 'pt') {
    rep(/(?<!\d)(\d{1,2})\.?(?:([º°])|(ª))(?!\p{L})/gu, (m, n: string, masc?: string, fem?: string) => {
      const stem = ROMANCE_ORDINALS[lang][Number(n)];
      if (!stem) return m;
      if (lang === 'es' && fem === undefined && (stem === 'primer' || stem === 'tercer')) return `${stem}o`;
      if (lang === 'es' && (stem === 'primer' || stem === 'tercer')) return `${stem}a`;
      void masc;
      return `${stem}${fem !== undefined ? 'a' : 'o'}`;
    });
  }
  return t;
}
