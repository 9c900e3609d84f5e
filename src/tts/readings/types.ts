// The shapes of a readings conversion, apart from the pool that runs it: the worker task table
// (src/tts/readings/readings-tasks.ts) and the converter need them without importing the pool.

export type ReadingLanguage = 'ja' | 'ko';

/** One unit of the original text and what is said for it (for mapping word timings back). */
export interface ReadingToken {
  surface: string;
  reading: string;
}

export interface Readings {
  /** The text to synthesize: the readings joined. */
  text: string;
  /** In order; the surfaces joined give the original text. */
  tokens: ReadingToken[];
}
