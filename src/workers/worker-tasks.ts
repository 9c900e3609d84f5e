// The tasks worker threads can run, by name. Each entry loads its module lazily inside the worker,
// so a worker only pays for the engines it is asked to use (eSpeak init is ~0.4 s).
// Add a task: one line in TaskMap (types) and one in taskHandlers.

import type { FinishPayload } from './finish-task.js';
import type { EncodePayload } from './encode-task.js';
import type { EspeakOutput, EspeakTask } from '../engines/espeak/espeak-worker.js';
import type { SherpaTtsTask } from '../engines/sherpa/sherpa-tts-worker.js';
import type { ReadingLanguage, Readings } from '../tts/readings/types.js';
import type { Piece } from '../stt/long-audio/plan.js';

export interface TaskMap {
  /** Health check of the pool itself. */
  'pool.echo': { payload: { value: number }; result: { value: number } };
  /** Whisper transform of a voice's own audio (src/tts/dsp/whisper.ts). */
  'tts.whisper': { payload: { samples: Int16Array; sampleRate: number; seed?: number }; result: Int16Array };
  /** eSpeak NG synthesis (the program build per worker; the library build for word timings). */
  'tts.espeak': { payload: EspeakTask; result: EspeakOutput };
  /** sherpa-onnx neural TTS (Piper / Kokoro) when model files exist (src/engines/sherpa/). */
  'tts.sherpa': { payload: SherpaTtsTask; result: { samples: Int16Array; sampleRate: number } };
  /** Japanese / Korean text to kana / hangul readings (src/tts/readings/; its own one-thread pool). */
  'tts.readings': { payload: { language: ReadingLanguage; text: string }; result: Readings };
  /** Join segments with silences, resample, encode (src/workers/finish-task.ts). */
  'tts.finish': { payload: FinishPayload; result: Uint8Array };
  /** Join, resample, encode in one of Deepgram's speak encodings (src/workers/encode-task.ts). */
  'tts.encode': { payload: EncodePayload; result: Uint8Array };
  /** Pitch shift in semitones, duration unchanged (src/audio/dsp/time-pitch.ts). */
  'audio.pitch': { payload: { samples: Int16Array; sampleRate: number; semitones: number }; result: Int16Array };
  /** Speaker labels for speech spans (src/stt/diarize.ts). */
  'stt.diarize': { payload: { pcm: Int16Array; spans: Array<{ start: number; end: number }> }; result: number[] };
  /** Where to cut a long recording into pieces recognized in parallel (src/stt/long-audio/plan-task.ts). */
  'stt.plan': { payload: { pcm: Int16Array; pieceSeconds: number }; result: Piece[] };
  /** The premium model's finishing chain (src/engines/studio/finishing.ts). */
  'audio.studio': { payload: { samples: Int16Array; sampleRate: number }; result: { samples: Int16Array; sampleRate: number; loudnessIn: number; loudnessOut: number; gainDb: number } };
  'audio.resample': { payload: { samples: Int16Array; inputRate: number; outputRate: number }; result: Int16Array };
  /** Any supported upload to 16 kHz mono PCM (src/audio/decode.ts); AudioDecodeError when it is not audio. */
  'audio.decode': { payload: { bytes: Uint8Array }; result: { ok: true; pcm: Int16Array } | { ok: false; reason: string } };
}

export type TaskName = keyof TaskMap;
export type TaskPayload<N extends TaskName> = TaskMap[N]['payload'];
export type TaskResult<N extends TaskName> = TaskMap[N]['result'];

/**
 * Arrays in a task's result that the task made fresh for its caller: they are moved to the main
 * thread instead of copied (a 3,000-character text is ~7 MB of PCM, which would otherwise be copied
 * once per hop). Never list an array that can be a view on engine memory or a shared buffer.
 */
export const resultArrays: { [N in TaskName]?: (r: TaskResult<N>) => ArrayBufferView[] } = {
  'tts.espeak': (r) => [r.samples],
  'tts.finish': (r) => [r],
  'tts.encode': (r) => [r],
  'tts.whisper': (r) => [r],
  'audio.pitch': (r) => [r],
  'audio.resample': (r) => [r],
  'audio.studio': (r) => [r.samples],
};

export const taskHandlers: { [N in TaskName]: (p: TaskPayload<N>) => Promise<TaskResult<N>> } = {
  'pool.echo': async (p) => ({ value: p.value }),
  'tts.espeak': async (p) => (await import('../engines/espeak/espeak-worker.js')).synthesizeEspeak(p),
  'tts.sherpa': async (p) => (await import('../engines/sherpa/sherpa-tts-worker.js')).synthesizeSherpa(p),
  'tts.finish': async (p) => (await import('./finish-task.js')).finishInWorker(p),
  'tts.encode': async (p) => (await import('./encode-task.js')).encodeInWorker(p),
  'tts.readings': async (p) => (await import('../tts/readings/convert.js')).convertReadings(p),
  'audio.pitch': async (p) => (await import('../audio/dsp/time-pitch.js')).pitchShift(p.samples, p.sampleRate, p.semitones),
  'stt.diarize': async (p) => (await import('../stt/diarize.js')).diarizeSegments(p.pcm, p.spans),
  'stt.plan': async (p) => (await import('../stt/long-audio/plan-task.js')).planLongAudio(p.pcm, p.pieceSeconds),
  'audio.studio': async (p) => (await import('../engines/studio/finishing.js')).studioFinish(p.samples, p.sampleRate),
  'audio.resample': async (p) => (await import('../audio/resample.js')).resampleInt16(p.samples, p.inputRate, p.outputRate),
  // Error classes do not survive the thread boundary, so a decode failure comes back as data.
  'audio.decode': async (p) => {
    const { decodeToMono16k, AudioDecodeError } = await import('../audio/decode.js');
    try {
      return { ok: true, pcm: await decodeToMono16k(p.bytes) };
    } catch (err) {
      if (err instanceof AudioDecodeError) return { ok: false, reason: err.message };
      throw err;
    }
  },
  'tts.whisper': async (p) => (await import('../tts/dsp/whisper.js')).whisperize(p.samples, p.sampleRate, p.seed === undefined ? {} : { seed: p.seed }),
};
