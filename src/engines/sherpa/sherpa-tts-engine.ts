// SherpaTtsEngine: neural voices (Piper / Kokoro) through sherpa-onnx (Apache-2.0, npm
// sherpa-onnx-node with its native library), when their model files are in
// PARLA_MODELS_DIR/tts/. With the model lifecycle (as the server runs it) each voice is loaded on
// first use in a thread of its own, shared by every request, and unloaded when idle or evicted
// for memory (model-lifecycle.ts; lifecycle name "tts:<dir name>"); without one, synthesis runs on
// the worker pool, each worker keeping its own copy for good. Without model files the engine says
// "model files absent" and serves nothing; a model's chain then falls through to the next engine.
// Binding name: "sherpa" (e.g. "aura-max": ["sherpa", "flite", "espeak"]): every voice folder.
// One engine per model the manager verified is built too, "sherpa:<model name>" (createTtsEngines):
// those take over the Aura voices of their languages (docs/engines.md "Aura voices on a neural
// model"), each catalogue voice speaking with a speaker of its gender (speakers.ts).

import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { WorkerPool } from '../../workers/pool.js';
import { EngineOverloadedError, PoolOverloadedError } from '../../domain/overload.js';
import { EngineError, type SynthesisRequest, type SynthesisResult, type TtsEngine } from '../engine.js';
import type { ModelLifecycle } from '../model-lifecycle.js';
import { findSherpaTtsModels, type SherpaTtsModel } from './models.js';
import { TtsModelHost } from './tts-model-host.js';
import { parseNeuralVoiceKey, readSpeakers, speakerFor, type Speaker } from './speakers.js';
import type { EngineVoices } from '../engine.js';

export interface SherpaTtsOptions {
  /** Engine id (default "sherpa"). */
  id?: string;
  /** Serve only this model folder (the per-model engines "sherpa:<name>"). */
  only?: string;
}

export class SherpaTtsEngine implements TtsEngine {
  readonly id: string;
  readonly models: SherpaTtsModel[];
  private readonly problem: string | null;
  /** Each model's speakers with a known gender (read once: engines settle what they serve at start). */
  private readonly speakers = new Map<string, Speaker[]>();

  constructor(
    private readonly pool: WorkerPool,
    modelsDir: string,
    private readonly lifecycle?: ModelLifecycle,
    maxPending = 16,
    opts: SherpaTtsOptions = {},
  ) {
    this.id = opts.id ?? 'sherpa';
    this.models = findSherpaTtsModels(modelsDir).filter((m) => opts.only === undefined || m.name === opts.only);
    this.problem =
      this.models.length === 0
        ? `model files absent: no Piper or Kokoro model${opts.only ? ` named ${opts.only}` : ''} in ${path.join(modelsDir, 'tts')}`
        : libraryProblem();
    for (const m of this.models) this.speakers.set(m.name, readSpeakers(m));
    if (lifecycle && !this.problem) {
      for (const model of this.models) {
        const name = `tts:${model.name}`;
        // The generic engine and a model's own engine share the one loaded voice.
        if (lifecycle.has(name)) continue;
        lifecycle.register<TtsModelHost>({
          name,
          sizeMB: filesMB([model.model, model.voices]),
          load: async () => {
            let host: TtsModelHost | null = null;
            host = await TtsModelHost.start(model, this.id, maxPending, () => {
              if (host) lifecycle.invalidate(name, host);
            });
            return host;
          },
          unload: (host) => host.stop(),
        });
      }
    }
  }

  status(): { available: boolean; reason?: string } {
    return this.problem ? { available: false, reason: this.problem } : { available: true };
  }

  languages(): string[] {
    return this.problem ? [] : [...new Set(this.models.flatMap((m) => m.languages))];
  }

  lifecycleModels(): string[] {
    return this.problem ? [] : this.models.map((m) => `tts:${m.name}`);
  }

  /**
   * A catalogue voice's engine voice: its own mapping for this engine id when it has one, else a
   * speaker of its gender on the first model serving the language (speakers.ts), as
   * "<model>:<speaker id>"; undefined when no model here has a speaker of that gender.
   */
  catalogueVoice(engineVoices: EngineVoices, language: string): string | undefined {
    const own = engineVoices[this.id];
    if (own !== undefined) return own;
    const key = parseNeuralVoiceKey(engineVoices.neural);
    if (!key || this.problem) return undefined;
    for (const m of this.models) {
      if (!m.languages.includes(language)) continue;
      const sp = speakerFor(this.speakers.get(m.name) ?? [], key.gender, key.slot, language);
      if (sp) return `${m.name}:${sp.id}`;
    }
    return undefined;
  }

  /** engineVoice: "<model dir name>" or "<model dir name>:<speaker>" (a speaker id or name). */
  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    if (this.problem) throw new EngineError(this.id, this.problem, false);
    const [modelName = '', speaker = '0'] = req.engineVoice.split(':');
    const model =
      this.models.find((m) => m.name === modelName && m.languages.includes(req.language)) ??
      this.models.find((m) => m.languages.includes(req.language));
    if (!model) throw new EngineError(this.id, `no model serves ${req.language}`, false);
    // Not handed to the pool: aborting a running task terminates its worker and the loaded model.
    signal?.throwIfAborted();
    try {
      const task = { text: req.text, speaker, speed: req.speed, semitones: req.pitch, gainDb: req.gainDb ?? 0 };
      let res: { samples: Int16Array; sampleRate: number };
      if (this.lifecycle) {
        const lease = await this.lifecycle.acquire<TtsModelHost>(`tts:${model.name}`, signal);
        try {
          res = await lease.model.synthesize(task);
        } finally {
          lease.release();
        }
      } else {
        res = await this.pool.run('tts.sherpa', { model, ...task });
      }
      signal?.throwIfAborted();
      return res;
    } catch (err) {
      // Overload stays overload (503 with Retry-After at the edge), not an engine failure.
      if (signal?.aborted || err instanceof PoolOverloadedError || err instanceof EngineOverloadedError) throw err;
      throw new EngineError(this.id, `${model.name}: ${err instanceof Error ? err.message : String(err)}`, false, { cause: err });
    }
  }
}

/** What the memory budget counts for a voice: its files' size (at least 1 MB). */
function filesMB(files: Array<string | undefined>): number {
  let bytes = 0;
  for (const f of files) if (f && existsSync(f)) bytes += statSync(f).size;
  return Math.max(1, Math.ceil(bytes / 1048576));
}

function libraryProblem(): string | null {
  try {
    createRequire(import.meta.url).resolve('sherpa-onnx-node');
    return null;
  } catch {
    return 'the npm package sherpa-onnx-node is not installed';
  }
}
