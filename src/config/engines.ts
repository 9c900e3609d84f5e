// The engines' settings: the worker threads and their queue, and the neural models (where they
// live, how long and how many stay loaded).

import { totalmem } from 'node:os';
import path from 'node:path';
import { bool, ConfigError, int, modelNames, str, type Env } from '../domain/env-values.js';

export interface ModelLifecycleConfig {
  /** A model idle this long (seconds) is unloaded (PARLA_MODEL_TTL). */
  ttlSeconds: number;
  /** Resident models together stay under this (MB), least recently used idle ones unloaded first (PARLA_MODEL_MEMORY_MB). */
  memoryMB: number;
  /** Installed models loaded at start (PARLA_MODELS_PRELOAD, comma-separated names). */
  preload: string[];
  /** Longest a request waits for its model to load before 503 SERVICE_OVERLOADED (PARLA_MODEL_LOAD_WAIT). */
  loadWaitSeconds: number;
}

export interface EngineSettings {
  /** Engine worker threads (default: number of cores). */
  workerThreads: number;
  /** Workers in which `parla serve` starts eSpeak before it listens (PARLA_ESPEAK_WARM_WORKERS). */
  espeakWarmWorkers: number;
  /** Engine tasks allowed to wait for a worker before requests get 503 SERVICE_OVERLOADED. */
  engineQueueMax: number;
  /** Directory for optional neural model files (sherpa-onnx). */
  modelsDir: string;
  /** Loaded neural models (src/engines/model-lifecycle.ts). */
  models: ModelLifecycleConfig;
  /** The installed turn model that weighs each pause of a live turn (PARLA_TURN_MODEL), or null. */
  turnModel: string | null;
  /** Who spoke when (decision #91, docs/engines.md "Speaker diarization"). */
  diarization: DiarizationConfig;
  /** Flite through the native addon when it is built (PARLA_FLITE_NATIVE, default on); off: the `flite` program. */
  fliteNative: boolean;
  /** Seconds between two returns of the C heap's free memory to the system; 0 = never (PARLA_HEAP_TRIM_SECONDS, decision #79). */
  heapTrimSeconds: number;
}

export interface DiarizationConfig {
  /**
   * PARLA_DIARIZATION: "auto" (default) serves the installed speaker models when there is an
   * embedding model, the built-in clustering otherwise and whenever they fail; "builtin" never
   * uses them.
   */
  mode: 'auto' | 'builtin';
  /** PARLA_SPEAKER_EMBEDDING_MODEL: which installed embedding model (default: the first by name). */
  embeddingModel: string | null;
  /** PARLA_SPEAKER_SEGMENTATION_MODEL: which installed segmentation model; "none": embeddings only. */
  segmentationModel: string | null;
  /** PARLA_SPEAKER_THRESHOLD: the cosine distance (0-2) past which two embeddings are two speakers. */
  threshold: number;
}

function diarizationConfig(env: Env): DiarizationConfig {
  const mode = str(env, 'PARLA_DIARIZATION') ?? 'auto';
  if (mode !== 'auto' && mode !== 'builtin') throw new ConfigError(`PARLA_DIARIZATION must be auto or builtin, got "${mode}"`);
  const [embeddingModel = null] = modelNames(env, 'PARLA_SPEAKER_EMBEDDING_MODEL');
  const [segmentationModel = null] = modelNames(env, 'PARLA_SPEAKER_SEGMENTATION_MODEL');
  // 0.5: sherpa-onnx's own example threshold (nodejs-addon-examples/test_offline_speaker_diarization.js).
  const raw = str(env, 'PARLA_SPEAKER_THRESHOLD') ?? '0.5';
  const threshold = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || !(threshold > 0 && threshold < 2))
    throw new ConfigError(`PARLA_SPEAKER_THRESHOLD must be a cosine distance between 0 and 2 (e.g. 0.5), got "${raw}"`);
  return { mode, embeddingModel, segmentationModel, threshold };
}

export function engineSettings(env: Env, cores: number, dataDir: string): EngineSettings {
  const workerThreads = int(env, 'PARLA_WORKERS', cores, 1, 256);
  return {
    workerThreads,
    engineQueueMax: int(env, 'PARLA_QUEUE_MAX', workerThreads * 8, 0, 100000),
    modelsDir: path.resolve(str(env, 'PARLA_MODELS_DIR') ?? path.join(dataDir, 'models')),
    models: {
      ttlSeconds: int(env, 'PARLA_MODEL_TTL', 600, 1, 604800),
      // Default: half of this machine's memory.
      memoryMB: int(env, 'PARLA_MODEL_MEMORY_MB', Math.max(256, Math.floor(totalmem() / 1048576 / 2)), 1, 16777216),
      preload: modelNames(env, 'PARLA_MODELS_PRELOAD'),
      loadWaitSeconds: int(env, 'PARLA_MODEL_LOAD_WAIT', 60, 1, 3600),
    },
    turnModel: str(env, 'PARLA_TURN_MODEL'),
    diarization: diarizationConfig(env),
    fliteNative: bool(env, 'PARLA_FLITE_NATIVE', true),
    // None by default (decision #98): a warm eSpeak holds ~120-150 MB in its worker, and it speaks
    // only the languages Flite has no voice for; a cold worker's first eSpeak text takes ~0.5 s more.
    espeakWarmWorkers: Math.min(workerThreads, int(env, 'PARLA_ESPEAK_WARM_WORKERS', 0, 0, 256)),
    heapTrimSeconds: int(env, 'PARLA_HEAP_TRIM_SECONDS', 10, 0, 86400),
  };
}
