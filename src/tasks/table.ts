// The handlers of the main worker pool's tasks (their names and types: src/workers/task-map.ts and
// the tasks.ts of each room that owns one). Each worker loads this module (PoolOptions.tasks), and
// each handler loads its module lazily inside the worker, so a worker only pays for the engines it
// is asked to use (eSpeak init is ~0.4 s). This room stands above tts/, stt/, engines/ and audio/,
// whose code it runs (docs/architecture.md, "Floors").

import { WorkerPool, type PoolOptions } from '../workers/pool.js';
import type { TaskMap, TaskTable } from '../workers/task-map.js';

/** This module, for PoolOptions.tasks. */
export const TASKS_MODULE = import.meta.url;

/** The main worker pool, running the tasks of this table. */
export function createWorkerPool(opts: Omit<PoolOptions, 'tasks'>): WorkerPool<TaskMap> {
  return new WorkerPool<TaskMap>({ ...opts, tasks: TASKS_MODULE });
}

export const resultArrays: TaskTable<TaskMap>['resultArrays'] = {
  'tts.espeak': (r) => [r.samples],
  'tts.finish': (r) => [r],
  'tts.encode': (r) => [r],
  'tts.whisper': (r) => [r],
  'audio.pitch': (r) => [r],
  'audio.resample': (r) => [r],
  'audio.studio': (r) => [r.samples],
  'audio.voice': (r) => [r],
};

export const taskHandlers: TaskTable<TaskMap>['taskHandlers'] = {
  'pool.echo': async (p) => ({ value: p.value }),
  'tts.espeak': async (p) => (await import('../engines/espeak/espeak-worker.js')).synthesizeEspeak(p),
  'tts.flite-live': async (p) => (await import('../engines/flite/flite-live.js')).synthesizeFliteLive(p),
  'tts.sherpa': async (p) => (await import('../engines/sherpa/sherpa-tts-worker.js')).synthesizeSherpa(p),
  'tts.finish': async (p) => (await import('../tts/finish-task.js')).finishInWorker(p),
  'tts.encode': async (p) => (await import('../tts/encode-task.js')).encodeInWorker(p),
  'audio.pitch': async (p) => (await import('../audio/dsp/time-pitch.js')).pitchShift(p.samples, p.sampleRate, p.semitones),
  'stt.diarize': async (p) => (await import('../stt/diarize.js')).diarizeKnown(p.pcm, p.spans, p.references),
  'stt.plan': async (p) => (await import('../stt/long-audio/plan-task.js')).planLongAudio(p.pcm, p.pieceSeconds, p.cutting, p.detector),
  'audio.studio': async (p) => (await import('../engines/studio/finishing.js')).studioFinish(p.samples, p.sampleRate),
  'audio.voice': async (p) => (await import('../audio/dsp/voice-output.js')).voiceOutput(p),
  'audio.resample': async (p) => (await import('../audio/resample.js')).resampleInt16(p.samples, p.inputRate, p.outputRate),
  'tts.whisper': async (p) =>
    (await import('../tts/dsp/whisper.js')).whisperize(p.samples, p.sampleRate, p.seed === undefined ? {} : { seed: p.seed }),
};
