// Language code handling: normalization ("en-us" -> "en-US", "nb-NO" -> "no-NO") and the set of
// codes that name a real language (ISO 639-1, plus the three-letter codes the catalogue uses), which separates
// INVALID_LANGUAGE (not a language) from LANGUAGE_NOT_SUPPORTED (a language the model lacks).

import { table } from '../domain/lookup.js';

const ISO_639_1 = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu ' +
    'fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko ' +
    'kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi ' +
    'pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ' +
    'ur uz ve vi vo wa wo xh yi yo za zh zu'
  ).split(' '),
);
const THREE_LETTER = new Set(['fil', 'yue', 'cmn', 'haw', 'ceb', 'hak', 'nan', 'hyw', 'kaa', 'kok', 'ltg']);

/** Codes that name the same language as a catalogue code: macrolanguage members and retired ISO codes. */
const ALIASES: Record<string, string> = table({ nb: 'no', cmn: 'zh', tl: 'fil', iw: 'he', in: 'id', ji: 'yi' });

export function normalizeCode(raw: string): string {
  const parts = raw.trim().replace(/_/g, '-').split('-').filter(Boolean);
  if (parts.length === 0) return '';
  const [raw0, ...rest] = parts;
  const lang = raw0!.toLowerCase();
  return [
    ALIASES[lang] ?? lang,
    ...rest.map((p) => (/^[a-z]{2}$/i.test(p) ? p.toUpperCase() : /^\d{3}$/.test(p) ? p : p.toLowerCase())),
  ].join('-');
}

export function baseOf(code: string): string {
  return code.split('-')[0] ?? code;
}

/** True when the code names a real language, whether or not Parla serves it. */
export function isRealLanguage(code: string): boolean {
  const base = baseOf(code);
  return /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(code) && (ISO_639_1.has(base) || THREE_LETTER.has(base));
}

/** Preferred regional default when a short code matches several served codes. */
export const PREFERRED_VARIANT: Record<string, string> = table({ en: 'en-US', es: 'es-ES', fr: 'fr-FR', pt: 'pt-BR', de: 'de-DE' });
