// Readings for the CJK languages whose script eSpeak cannot read: Japanese kanji (to katakana
// as spoken) and Korean hanja (to hangul). Chinese needs none: eSpeak's Mandarin voice reads
// hanzi, simplified and traditional, with tones (docs/engines.md). The conversion runs on a
// one-thread pool of its own, created on the first text that needs it: the Japanese dictionary
// is loaded there once (~0.6 s, ~400 MB) instead of in every synthesis worker, and the event loop
// never waits for it.

import { EnginePool } from '../../workers/pool.js';
import type { ReadingLanguage, Readings } from './types.js';

export type { ReadingLanguage, ReadingToken, Readings } from './types.js';

const HAN = /\p{Script=Han}/u;

/** Which conversion a text in this catalogue language needs before eSpeak, or null. */
export function readingLanguage(language: string, text: string): ReadingLanguage | null {
  const base = language.split('-')[0]!.toLowerCase();
  return (base === 'ja' || base === 'ko') && HAN.test(text) ? base : null;
}

/** Conversion calls allowed to wait for the readings thread (each takes a few ms). */
const MAX_QUEUE = 256;
let pool: EnginePool | null = null;

function readingsPool(): EnginePool {
  // A worker crash is handled by piscina (the next task gets a fresh thread, which reloads).
  pool ??= new EnginePool({ threads: 1, maxQueue: MAX_QUEUE });
  return pool;
}

/** Whether the readings thread was started (tests check that other languages never start it). */
export function readingsStarted(): boolean {
  return pool !== null;
}

/** The readings of a text; runs on the readings thread. */
export function toReadings(language: ReadingLanguage, text: string): Promise<Readings> {
  return readingsPool().run('tts.readings', { language, text });
}

/** The text eSpeak should be given for `text` in `language`: its readings where it needs them. */
export async function speakableText(language: string, text: string): Promise<string> {
  const lang = readingLanguage(language, text);
  return lang ? (await toReadings(lang, text)).text : text;
}

/** Stops the readings thread (the next conversion starts a new one). */
export async function closeReadings(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.close();
}
