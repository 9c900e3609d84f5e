// One typed, validated configuration: environment variables for the deployment (ports, database,
// secrets) and config/parla.json (+ optional PARLA_CONFIG override) for the product (plans,
// prices, engine bindings). Nothing else in the code reads process.env.
//
// One file per section under src/config/ (its settings, their defaults and checks): a new setting
// goes in its section's file, and in the section's interface that Config is made of.

import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { str, type Env } from './domain/env-values.js';
import { engineSettings, type EngineSettings } from './config/engines.js';
import { jobsConfig, type JobsConfig } from './config/jobs.js';
import { loadProduct, type ProductConfig } from './config/product.js';
import { realtimeSettings, type RealtimeSettings } from './config/realtime.js';
import { serverSettings, type ServerSettings } from './config/server.js';
import { sttSettings, type SttSettings } from './config/stt.js';
import { ttsSettings, type TtsSettings } from './config/tts.js';
import { wyomingConfig, type WyomingConfig } from './config/wyoming.js';

export { ConfigError } from './domain/env-values.js';
export type { ModelLifecycleConfig } from './config/engines.js';
export type { JobsConfig } from './config/jobs.js';
export type { DeepgramMapping, OpenAiMapping, PlanConfig, ProductConfig, SttBinding } from './config/product.js';
export type { DecodeConfig, SttLongConfig } from './config/stt.js';
export type { TtsLimits } from './config/tts.js';
export type { WyomingConfig } from './config/wyoming.js';

export const PROJECT_ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  fileURLToPath(import.meta.url).includes(`${path.sep}dist${path.sep}`) ? '../..' : '..',
);

export interface Config extends ServerSettings, RealtimeSettings, EngineSettings, SttSettings, TtsSettings {
  /** Asynchronous jobs and their URL downloads (docs/jobs.md). */
  jobs: JobsConfig;
  /** The Wyoming server (Home Assistant's local voice protocol); null when WYOMING_PORT is unset. */
  wyoming: WyomingConfig | null;
  product: ProductConfig;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(str(env, 'PARLA_DATA_DIR') ?? path.join(PROJECT_ROOT, 'data'));
  const cores = availableParallelism();
  const engines = engineSettings(env, cores, dataDir);
  return {
    ...serverSettings(env, dataDir),
    ...realtimeSettings(env),
    ...engines,
    ...sttSettings(env, cores, engines.workerThreads),
    ...ttsSettings(env),
    jobs: jobsConfig(env, engines.workerThreads),
    wyoming: wyomingConfig(env),
    product: loadProduct(env, PROJECT_ROOT),
  };
}
