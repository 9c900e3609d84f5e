// SherpaTtsEngine: neural voices (Piper / Kokoro) through sherpa-onnx (Apache-2.0, npm
// sherpa-onnx-node with its native library), when their model files are in
// PARLA_MODELS_DIR/tts/. Synthesis runs on the worker pool. Without model files the engine says
// "model files absent" and serves nothing; a model's chain then falls through to the next engine.
// Binding name: "sherpa" (e.g. "aura-max": ["sherpa", "flite", "espeak"]).

import { createRequire } from 'node:module';
import path from 'node:path';
import { PoolOverloadedError, type EnginePool } from '../../workers/pool.js';
import { EngineError, type SynthesisRequest, type SynthesisResult, type TtsEngine } from '../engine.js';
import { findSherpaTtsModels, type SherpaTtsModel } from './models.js';

export class SherpaTtsEngine implements TtsEngine {
  readonly id = 'sherpa';
  readonly models: SherpaTtsModel[];
  private readonly problem: string | null;

  constructor(
    private readonly pool: EnginePool,
    modelsDir: string,
  ) {
    this.models = findSherpaTtsModels(modelsDir);
    this.problem = this.models.length === 0 ? `model files absent: no Piper or Kokoro model in ${path.join(modelsDir, 'tts')}` : libraryProblem();
  }

  status(): { available: boolean; reason?: string } {
    return this.problem ? { available: false, reason: this.problem } : { available: true };
  }

  languages(): string[] {
    return this.problem ? [] : [...new Set(this.models.flatMap((m) => m.languages))];
  }

  /** engineVoice: "<model dir name>" or "<model dir name>:<speaker>" (a speaker id or name). */
  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    if (this.problem) throw new EngineError(this.id, this.problem, false);
    const [modelName = '', speaker = '0'] = req.engineVoice.split(':');
    const model = this.models.find((m) => m.name === modelName && m.languages.includes(req.language)) ?? this.models.find((m) => m.languages.includes(req.language));
    if (!model) throw new EngineError(this.id, `no model serves ${req.language}`, false);
    // Not handed to the pool: aborting a running task terminates its worker and the loaded model.
    signal?.throwIfAborted();
    try {
      const res = await this.pool.run('tts.sherpa', { model, text: req.text, speaker, speed: req.speed, semitones: req.pitch });
      signal?.throwIfAborted();
      return res;
    } catch (err) {
      if (signal?.aborted || err instanceof PoolOverloadedError) throw err;
      throw new EngineError(this.id, `${model.name}: ${err instanceof Error ? err.message : String(err)}`, false, { cause: err });
    }
  }
}

function libraryProblem(): string | null {
  try {
    createRequire(import.meta.url).resolve('sherpa-onnx-node');
    return null;
  } catch {
    return 'the npm package sherpa-onnx-node is not installed';
  }
}
