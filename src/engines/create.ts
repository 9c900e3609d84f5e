// The TTS engines this build has, constructed for one node. Which one serves a product model is the
// model registry's business (src/registry/model-registry.ts): a new engine is added here and named
// in a model's chain in configuration; services and routes never change.

import type { Config } from '../config.js';
import type { ProcessSpawner } from '../process/spawner.js';
import type { TtsEngine } from './engine.js';
import type { WorkerPool } from '../workers/pool.js';
import type { ModelLifecycle } from './model-lifecycle.js';
import { FliteEngine } from './flite/flite-engine.js';
import { loadFliteNative } from './flite/flite-native.js';
import { Slots } from './slots.js';
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
  pool: WorkerPool,
  opts: {
    espeakExtraLanguages?: ReadonlyMap<string, string>;
    lifecycle?: ModelLifecycle;
    spawner?: ProcessSpawner;
    log?: { warn(obj: object, msg: string): void };
  } = {},
): TtsEngine[] {
  // libflite (the addon) runs on libuv's pool, which PocketSphinx and file I/O share: both Flite
  // engines together take at most one thread per worker thread (one per core by default). The
  // program's processes are capped per engine, as before (decision #88).
  const native = config.fliteNative && 'native' in loadFliteNative();
  const fliteCap = native
    ? { native, slots: new Slots(Math.max(1, config.workerThreads)) }
    : { native, maxProcesses: Math.max(2, config.workerThreads * 2) };
  const flite = new FliteEngine(pool, { ...fliteCap, ...(opts.spawner ? { spawner: opts.spawner } : {}) });
  const espeak = new EspeakEngine(pool, opts.espeakExtraLanguages);
  const festival = new FestivalEngine(pool);
  return [
    flite,
    // aura-lite's English: Flite's kal16 diphone voice only (as fast as eSpeak), read from the
    // voices' own "flite-lite" mapping.
    new FliteEngine(pool, {
      id: 'flite-lite',
      voices: ['kal16'],
      ...fliteCap,
      ...(opts.spawner ? { spawner: opts.spawner } : {}),
    }),
    espeak,
    festival,
    new SherpaTtsEngine(pool, config.modelsDir, opts.lifecycle, Math.max(1, config.engineQueueMax)),
    // One engine per voice model the manager verified: they take over the Aura voices of their
    // languages (neuralTtsEngines, src/registry/neural-voices.ts).
    ...verifiedTtsModels(config.modelsDir, opts.log).map(
      (name) =>
        new SherpaTtsEngine(pool, config.modelsDir, opts.lifecycle, Math.max(1, config.engineQueueMax), {
          id: `sherpa:${name}`,
          only: name,
        }),
    ),
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
