// The one task of the readings thread (src/tts/readings/readings.ts): a pool of its own, with this
// table, so the Japanese dictionary is loaded there once and never in the synthesis workers.

import type { TaskTable } from '../../workers/task-map.js';
import type { ReadingLanguage, Readings } from './types.js';

export interface ReadingsTasks {
  /** Japanese / Korean text to kana / hangul readings (src/tts/readings/convert.ts). */
  'tts.readings': { payload: { language: ReadingLanguage; text: string }; result: Readings };
}

/** This module, for PoolOptions.tasks. */
export const READINGS_TASKS = import.meta.url;

export const resultArrays: TaskTable<ReadingsTasks>['resultArrays'] = {};

export const taskHandlers: TaskTable<ReadingsTasks>['taskHandlers'] = {
  'tts.readings': async (p) => (await import('./convert.js')).convertReadings(p),
};
