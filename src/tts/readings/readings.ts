// Readings for the CJK languages whose script eSpeak cannot read: Japanese kanji (to katakana
// as spoken) and Korean hanja (to hangul). Chinese needs none: eSpeak's Mandarin voice reads
// hanzi, simplified and traditional, with tones (docs/engines.md). The conversion runs on a
// one-thread pool of its own, created on the first text that needs it: the Japanese dictionary
// is loaded there once (~0.6 s, ~400 MB) instead of in every synthesis worker, and the event loop
// never waits for it.

import { WorkerPool } from '../../workers/pool.js';
import { READINGS_TASKS, type ReadingsTasks } from './readings-tasks.js';
import type { ReadingLanguage, Readings } from './types.js';
import { normalizeForSpeech } from '../normalize/normalize.js';

export type { ReadingLanguage, ReadingToken, Readings } from './types.js';

const HAN = /\p{Script=Han}/u;
/** Kana text needs the dictionary too where a particle は, へ or を may be (read wa, e, o). */
const JA_NEEDS_DICTIONARY = /[\p{Script=Han}はへを]/u;

/** Which conversion a text in this catalogue language needs before eSpeak, or null. */
export function readingLanguage(language: string, text: string): ReadingLanguage | null {
  const base = language.split('-')[0]!.toLowerCase();
  if (base === 'ja') return JA_NEEDS_DICTIONARY.test(text) ? 'ja' : null;
  return base === 'ko' && HAN.test(text) ? base : null;
}

/** Conversion calls allowed to wait for the readings thread (each takes a few ms). */
const MAX_QUEUE = 256;
let pool: WorkerPool<ReadingsTasks> | null = null;

function readingsPool(): WorkerPool<ReadingsTasks> {
  // A worker crash is handled by piscina (the next task gets a fresh thread, which reloads).
  pool ??= new WorkerPool<ReadingsTasks>({ threads: 1, maxQueue: MAX_QUEUE, tasks: READINGS_TASKS });
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

/**
 * The text an engine should be given for `text` in `language`: numbers, dates, times and
 * abbreviations as they are said (normalize/), then readings where the script needs them.
 */
export async function speakableText(language: string, text: string): Promise<string> {
  const said = normalizeForSpeech(language, text);
  const lang = readingLanguage(language, said);
  return lang ? (await toReadings(lang, said)).text : said;
}

/** Stops the readings thread (the next conversion starts a new one). */
export async function closeReadings(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.close();
}
