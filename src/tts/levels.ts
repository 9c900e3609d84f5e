// One loudness per model (issue 29, item 2; decision #40): every voice gets a fixed gain, read
// from src/catalog/data/voice-levels.json, so that its speech measures TARGET_LUFS integrated
// (ITU-R BS.1770). The table is measured, not guessed: scripts/calibrate-voice-levels.ts renders
// every voice of every model in every language it serves and writes the gain that brings each to
// the target. The gain is the same for every chunk of every request with that voice, in the file
// and in the stream; only the limiter (src/audio/dsp/level.ts) acts on rare peaks.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.js';

export const TARGET_LUFS = -16;
const TABLE_FILE = path.join(PROJECT_ROOT, 'src/catalog/data/voice-levels.json');

/** What the gain of a rendering depends on: the engine's voice key, its voice, the language and the pitch (semitones). */
export function levelKey(mapping: string, engineVoice: string, language: string): string {
  return `${mapping}|${engineVoice}|${language}`;
}

interface LevelTable {
  targetLufs: number;
  /** key -> [[pitch, gain dB], ...] */
  gains: Record<string, Array<[number, number]>>;
}

let table: LevelTable | null = null;

function load(): LevelTable {
  if (!table) {
    try {
      table = JSON.parse(readFileSync(TABLE_FILE, 'utf8')) as LevelTable;
    } catch {
      // No table (a fresh checkout before calibration): the limiter alone, gain 0.
      table = { targetLufs: TARGET_LUFS, gains: {} };
    }
  }
  return table;
}

/**
 * The fixed gain for a voice, dB: the calibrated gain at the nearest calibrated pitch (a request's
 * own pitch, emphasis and vocalizations move the pitch a few semitones off the voice's own).
 */
export function voiceGainDb(mapping: string, engineVoice: string, language: string, pitch: number): number {
  const rows = load().gains[levelKey(mapping, engineVoice, language)];
  if (!rows?.length) return 0;
  let best = rows[0]!;
  for (const r of rows) if (Math.abs(r[0] - pitch) < Math.abs(best[0] - pitch)) best = r;
  return best[1];
}

/** For the calibration script: the table as it is, and a way to replace it in this process. */
export function levelTable(): LevelTable {
  return load();
}
export function setLevelTable(t: LevelTable): void {
  table = t;
}
export const LEVEL_TABLE_FILE = TABLE_FILE;
