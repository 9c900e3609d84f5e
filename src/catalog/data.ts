// Loads the catalogue's data files (built by scripts/catalog/build.mjs) into typed structures.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.js';

export interface LanguageInfo {
  code: string;
  name: string;
  region: string;
  /** eSpeak NG language voice for this code. */
  espeak: string;
}

export interface AuraLanguage extends LanguageInfo {
  /** Key into the localized names. */
  nameSet: string;
}

export type Gender = 'male' | 'female';

export interface AuraVoice {
  id: string;
  gender: Gender;
  /** Position among the voices of its gender: picks its name in every language's name list. */
  slot: number;
  age: 'young' | 'middle' | 'senior';
  style: 'narrative' | 'conversational' | 'news';
  use_case: string;
  premium: boolean;
  espeak: string;
  flite: string;
  /** aura-lite's English voice (Flite kal16, `@Hz` for an F0 mean). */
  fliteLite: string;
  /** aura-max's English voice where Festival has one of the voice's gender. */
  festival?: string;
  basePitch: number;
  baseRate: number;
}

export interface FlashVoice {
  name: string;
  language: string;
  gender: Gender;
  engines: Record<string, string>;
  basePitch: number;
  baseRate: number;
}

export interface CatalogData {
  auraLanguages: AuraLanguage[];
  flashLanguages: LanguageInfo[];
  auraVoices: AuraVoice[];
  /** name set -> gender -> 15 names (index = voice slot). */
  names: Record<string, Record<Gender, string[]>>;
  flashVoices: FlashVoice[];
}

function read<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'src', 'catalog', 'data', file), 'utf8')) as T;
}

let cached: CatalogData | null = null;

export function loadCatalogData(): CatalogData {
  if (cached) return cached;
  const langs = read<{ aura: AuraLanguage[]; flash: LanguageInfo[] }>('languages.json');
  cached = {
    auraLanguages: langs.aura,
    flashLanguages: langs.flash,
    auraVoices: read<{ voices: AuraVoice[] }>('aura-voices.json').voices,
    names: read<Record<string, Record<Gender, string[]>>>('aura-names.json'),
    flashVoices: read<{ voices: FlashVoice[] }>('flash-voices.json').voices,
  };
  return cached;
}
