// The TTS engine registry: which engines exist here, and which one serves a product model in a
// language. Each model is bound in configuration to an ordered chain of engine ids; the first
// available engine of the chain that serves the language is used. A new engine (e.g. a neural
// one) plugs in by being added here and named in a chain; routes never change.

import type { Config } from '../config.js';
import type { TtsEngine } from './engine.js';
import type { EnginePool } from './pool.js';
import { FliteEngine } from './flite/flite-engine.js';
import { EspeakEngine } from './espeak/espeak-engine.js';
import { SherpaTtsEngine } from './sherpa/sherpa-tts-engine.js';
import { FestivalEngine } from './festival/festival-engine.js';
import { StudioEngine } from './studio/studio-engine.js';

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

  /**
   * The first available engine of the model's chain that serves the language, or null. Given a
   * voice's engine voices, only an engine that has a mapping for the voice qualifies (aura-max
   * speaks its female English voices with Festival's HTS voice and its male ones with Flite).
   */
  resolveTtsEngine(model: string, language: string, engineVoices?: Readonly<Record<string, string | undefined>>): TtsEngine | null {
    return this.chain(model).find((e) => e.languages().includes(language) && (engineVoices === undefined || engineVoiceFor(e, engineVoices) !== undefined)) ?? null;
  }

  /** Every language the model's chain really serves here (empty for an unknown model). */
  languagesForModel(model: string): Set<string> {
    const out = new Set<string>();
    for (const e of this.chain(model)) for (const l of e.languages()) out.add(l);
    return out;
  }

  /** Same as resolveTtsEngine (the name the TTS service and catalogue routes use). */
  resolve(model: string, language: string, engineVoices?: Readonly<Record<string, string | undefined>>): TtsEngine | null {
    return this.resolveTtsEngine(model, language, engineVoices);
  }

  /** Same as languagesForModel (the name the catalogue uses). */
  languagesServed(model: string): Set<string> {
    return this.languagesForModel(model);
  }
}

/** The engine voice a catalogue voice uses on this engine, or undefined when it has none. */
export function engineVoiceFor(engine: TtsEngine, engineVoices: Readonly<Record<string, string | undefined>>): string | undefined {
  return engineVoices[engine.voiceMapping ?? engine.id];
}

/**
 * Every TTS engine this build has, constructed for this node. An engine that cannot run here
 * (no flite binary, no sherpa model files) is still listed: it reports why through status().
 */
export function createTtsEngines(config: Config, pool: EnginePool, opts: { espeakExtraLanguages?: ReadonlyMap<string, string> } = {}): TtsEngine[] {
  const flite = new FliteEngine(pool, { maxProcesses: Math.max(2, config.workerThreads * 2) });
  const espeak = new EspeakEngine(pool, opts.espeakExtraLanguages);
  const festival = new FestivalEngine(pool);
  return [
    flite,
    // aura-lite's English: Flite's kal16 diphone voice only (as fast as eSpeak), read from the
    // voices' own "flite-lite" mapping.
    new FliteEngine(pool, { id: 'flite-lite', voices: ['kal16'], maxProcesses: Math.max(2, config.workerThreads * 2) }),
    espeak,
    festival,
    new SherpaTtsEngine(pool, config.modelsDir),
    // aura-max: the same engines through the studio finishing chain.
    new StudioEngine(festival, pool),
    new StudioEngine(flite, pool),
    new StudioEngine(espeak, pool),
  ];
}
