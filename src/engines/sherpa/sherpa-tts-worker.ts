// sherpa-onnx text-to-speech inside a worker thread: one loaded model per model directory and
// worker, created on first use and reused (loading an ONNX model costs far more than a sentence).

import { createRequire } from 'node:module';
import { float32ToInt16 } from '../../audio/pcm.js';
import { voiceOutput } from '../../audio/dsp/voice-output.js';
import { level } from '../../audio/dsp/level.js';
import type { SherpaTtsModel } from './models.js';

interface OfflineTts {
  numSpeakers: number;
  sampleRate: number;
  generate(req: { text: string; sid: number; speed: number }): { samples: Float32Array; sampleRate: number };
}

interface SherpaModule {
  OfflineTts: { createAsync(config: unknown): Promise<OfflineTts> };
}

const loaded = new Map<string, Promise<OfflineTts>>();

function load(model: SherpaTtsModel): Promise<OfflineTts> {
  let tts = loaded.get(model.dir);
  if (!tts) {
    const sherpa = createRequire(import.meta.url)('sherpa-onnx-node') as SherpaModule;
    const files = { model: model.model, tokens: model.tokens, dataDir: model.dataDir };
    const acoustic =
      model.kind === 'kokoro'
        ? { kokoro: { ...files, voices: model.voices, ...(model.lexicon ? { lexicon: model.lexicon } : {}) } }
        : { vits: files };
    // One thread per model: the pool already runs one task per core.
    tts = sherpa.OfflineTts.createAsync({ model: { ...acoustic, numThreads: 1, provider: 'cpu', debug: 0 }, maxNumSentences: 1 });
    tts.catch(() => loaded.delete(model.dir));
    loaded.set(model.dir, tts);
  }
  return tts;
}

/** Loads the model now (a model's own thread loads it before it takes work). */
export async function prepareSherpa(model: SherpaTtsModel): Promise<void> {
  await load(model);
}

export interface SherpaTtsTask {
  model: SherpaTtsModel;
  text: string;
  /** Speaker: a number, or any other name hashed onto the model's speakers. */
  speaker: string;
  speed: number;
  semitones: number;
  /** The voice's fixed gain before the limiter (src/audio/dsp/level.ts). */
  gainDb?: number;
}

export async function synthesizeSherpa(task: SherpaTtsTask): Promise<{ samples: Int16Array; sampleRate: number }> {
  const tts = await load(task.model);
  const audio = tts.generate({ text: task.text, sid: speakerId(task.speaker, tts.numSpeakers), speed: task.speed });
  // The model's float output goes to the output stage unclipped (unless shifted, which starts from 16 bits).
  const samples =
    task.semitones !== 0 && audio.samples.length > 0
      ? voiceOutput({
          samples: float32ToInt16(audio.samples),
          sampleRate: audio.sampleRate,
          semitones: task.semitones,
          gainDb: task.gainDb ?? 0,
          dc: false,
        })
      : level(audio.samples, audio.sampleRate, { gainDb: task.gainDb ?? 0 });
  return { samples, sampleRate: audio.sampleRate };
}

function speakerId(speaker: string, count: number): number {
  const n = Math.max(1, count);
  if (/^\d+$/.test(speaker)) return Number(speaker) % n;
  let h = 0;
  for (const c of speaker) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % n;
}
