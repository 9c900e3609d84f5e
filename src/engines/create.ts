// The TTS engines this build has, constructed for one node. Which one serves a product model is the
// model registry's business (src/registry/model-registry.ts): a new engine is added here and named
// in a model's chain in configuration; services and routes never change.

import type { Config } from '../config.js';
import type { ProcessSpawner } from '../process/spawner.js';
import type { TtsEngine } from './engine.js';
import type { EnginePool } from '../workers/pool.js';
import type { ModelLifecycle } from './model-lifecycle.js';
import { FliteEngine } from './flite/flite-engine.js';
import { EspeakEngine } from './espeak/espeak-engine.js';
import { SherpaTtsEngine } from './sherpa/sherpa-tts-engine.js';
import { FestivalEngine } from './festival/festival-engine.js';
import { StudioEngine } from './studio/studio-engine.js';
import { verifiedModels } from '../models/store.js';

/**
 * Every TTS engine this build has, constructed for this node. An engine that cannot run here
 * (no flite binary, no sherpa model files) is still listed: it reports why through status().
 */
export function createTtsEngines(
  config: Config,
  pool: EnginePool,
  opts: { espeakExtraLanguages?: ReadonlyMap<string, string>; lifecycle?: ModelLifecycle; spawner?: ProcessSpawner; log?: { warn(obj: object, msg: string): void } } = {},
): TtsEngine[] {
  const flite = new FliteEngine(pool, { maxProcesses: Math.max(2, config.workerThreads * 2), ...(opts.spawner ? { spawner: opts.spawner } : {}) });
  const espeak = new EspeakEngine(pool, opts.espeakExtraLanguages);
  const festival = new FestivalEngine(pool);
  return [
    flite,
    // aura-lite's English: Flite's kal16 diphone voice only (as fast as eSpeak), read from the
    // voices' own "flite-lite" mapping.
    new FliteEngine(pool, { id: 'flite-lite', voices: ['kal16'], maxProcesses: Math.max(2, config.workerThreads * 2), ...(opts.spawner ? { spawner: opts.spawner } : {}) }),
    espeak,
    festival,
    new SherpaTtsEngine(pool, config.modelsDir, opts.lifecycle, Math.max(1, config.engineQueueMax)),
    // One engine per voice model the manager verified: they take over the Aura voices of their
    // languages (neuralTtsEngines, src/registry/neural-voices.ts).
    ...verifiedTtsModels(config.modelsDir, opts.log).map((name) => new SherpaTtsEngine(pool, config.modelsDir, opts.lifecycle, Math.max(1, config.engineQueueMax), { id: `sherpa:${name}`, only: name })),
    // aura-max: the same engines through the studio finishing chain.
    new StudioEngine(festival, pool),
    new StudioEngine(flite, pool),
    new StudioEngine(espeak, pool),
  ];
}

/** Names of the voice models recorded as verified (manifest status ok, folder present). */
function verifiedTtsModels(modelsDir: string, log?: { warn(obj: object, msg: string): void }): string[] {
  try {
    return verifiedModels(modelsDir)
      .filter((m) => m.kind === 'tts')
      .map((m) => m.name);
  } catch (err) {
    log?.warn({ err }, 'the models manifest cannot be read: no neural voices take over the Aura voices');
    return [];
  }
}
