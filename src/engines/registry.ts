// The TTS engine registry: which engines exist here, and which one serves a product model in a
// language. Each model is bound in configuration to an ordered chain of engine ids; the first
// available engine of the chain that serves the language is used. A new engine (e.g. a neural
// one) plugs in by being added here and named in a chain; routes never change.

import type { Config } from '../config.js';
import type { TtsEngine } from './engine.js';
import type { EnginePool } from './pool.js';
import type { ModelLifecycle } from './model-lifecycle.js';
import { FliteEngine } from './flite/flite-engine.js';
import { EspeakEngine } from './espeak/espeak-engine.js';
import { SherpaTtsEngine } from './sherpa/sherpa-tts-engine.js';

export class TtsEngineRegistry {
  private readonly engines = new Map<string, TtsEngine>();

  constructor(
    private readonly config: Config,
    engines: TtsEngine[],
  ) {
    for (const e of engines) this.engines.set(e.id, e);
  }

  engine(id: string): TtsEngine | undefined {
    return this.engines.get(id);
  }

  all(): TtsEngine[] {
    return [...this.engines.values()];
  }

  /** Engine ids named in the bindings that no registered engine has (a typo, or an engine not built here). */
  unknownBindings(): string[] {
    const ids = new Set(Object.values(this.config.product.ttsBindings).flat());
    return [...ids].filter((id) => !this.engines.has(id));
  }

  /** The model's configured engines that are available here, in chain order. */
  chain(model: string): TtsEngine[] {
    return (this.config.product.ttsBindings[model] ?? []).map((id) => this.engines.get(id)).filter((e): e is TtsEngine => e !== undefined && e.status().available);
  }

  /** The first available engine of the model's chain that serves the language, or null. */
  resolveTtsEngine(model: string, language: string): TtsEngine | null {
    return this.chain(model).find((e) => e.languages().includes(language)) ?? null;
  }

  /** Every language the model's chain really serves here (empty for an unknown model). */
  languagesForModel(model: string): Set<string> {
    const out = new Set<string>();
    for (const e of this.chain(model)) for (const l of e.languages()) out.add(l);
    return out;
  }

  /** Same as resolveTtsEngine (the name the TTS service and catalogue routes use). */
  resolve(model: string, language: string): TtsEngine | null {
    return this.resolveTtsEngine(model, language);
  }

  /** Same as languagesForModel (the name the catalogue uses). */
  languagesServed(model: string): Set<string> {
    return this.languagesForModel(model);
  }
}

/**
 * Every TTS engine this build has, constructed for this node. An engine that cannot run here
 * (no flite binary, no sherpa model files) is still listed: it reports why through status().
 */
export function createTtsEngines(config: Config, pool: EnginePool, opts: { espeakExtraLanguages?: ReadonlyMap<string, string>; lifecycle?: ModelLifecycle } = {}): TtsEngine[] {
  return [
    new FliteEngine(pool, { maxProcesses: Math.max(2, config.workerThreads * 2) }),
    new EspeakEngine(pool, opts.espeakExtraLanguages),
    new SherpaTtsEngine(pool, config.modelsDir, opts.lifecycle, Math.max(1, config.engineQueueMax)),
  ];
}
