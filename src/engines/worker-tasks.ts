// The tasks worker threads can run, by name. Each entry loads its module lazily inside the worker,
// so a worker only pays for the engines it is asked to use (eSpeak init is ~0.4 s).
// Add a task: one line in TaskMap (types) and one in taskHandlers.

export interface TaskMap {
  /** Health check of the pool itself. */
  'pool.echo': { payload: { value: number }; result: { value: number } };
  /** Whisper transform of a voice's own audio (src/tts/dsp/whisper.ts). */
  'tts.whisper': { payload: { samples: Int16Array; sampleRate: number; seed?: number }; result: Int16Array };
}

export type TaskName = keyof TaskMap;
export type TaskPayload<N extends TaskName> = TaskMap[N]['payload'];
export type TaskResult<N extends TaskName> = TaskMap[N]['result'];

export const taskHandlers: { [N in TaskName]: (p: TaskPayload<N>) => Promise<TaskResult<N>> } = {
  'pool.echo': async (p) => ({ value: p.value }),
  'tts.whisper': async (p) => (await import('../tts/dsp/whisper.js')).whisperize(p.samples, p.sampleRate, p.seed === undefined ? {} : { seed: p.seed }),
};
