// One typed, validated configuration: environment variables for the deployment (ports, database,
// secrets) and config/parla.json (+ optional PARLA_CONFIG override) for the product (plans,
// prices, engine bindings). Nothing else in the code reads process.env.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plan } from './domain/accounts.js';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url).includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');

export interface PlanConfig {
  requestsPerMinute: number;
  requestsPerHour: number;
  concurrent: number;
  monthlyCharacters: number;
  ttsModels: string[];
  premiumVoices: boolean;
}

export interface SttBinding {
  engine: string;
  profile: string;
}

export interface ProductConfig {
  plans: Record<Plan, PlanConfig>;
  pricing: {
    ttsCreditsPerCharacter: Record<string, number>;
    sttCreditsPerSecond: Record<string, number>;
  };
  ttsBindings: Record<string, string[]>;
  sttBindings: Record<string, SttBinding[]>;
  newAccountCredits: { live: number; test: number };
  /** The OpenAI dialect's tables: its ids and voice names -> Parla's (docs/compatibility.md). */
  openai: OpenAiMapping;
  deepgram: DeepgramMapping;
}

/** The Deepgram dialect's tables (docs/compatibility.md, "Deepgram"): its ids -> Parla's. */
export interface DeepgramMapping {
  /** Deepgram STT model ids (nova-3, nova-2, base, ...) -> Parla STT product models. */
  sttModels: Record<string, string>;
  /** Deepgram TTS model families (aura-2, aura: the `aura-2` of aura-2-<voice>-en) -> Parla TTS product models. */
  ttsModels: Record<string, string>;
  /** Aura voice names (the `<voice>` of aura-2-<voice>-en) -> Parla voice names. */
  voices: Record<string, string>;
}

export interface OpenAiMapping {
  ttsModels: Record<string, string>;
  sttModels: Record<string, string>;
  voices: Record<string, string>;
}

/** How a long recording is cut into pieces recognized in parallel (src/stt/long-audio/). */
export interface SttLongConfig {
  /** PARLA_STT_PARALLEL: false decodes every recording in one pass on one decoder. */
  parallel: boolean;
  /** Recordings longer than this many seconds are cut (PARLA_STT_LONG_SECONDS). */
  thresholdSeconds: number;
  /** Target length of a piece in seconds (PARLA_STT_PIECE_SECONDS). */
  pieceSeconds: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres:// URL, or null for SQLite in dataDir. */
  databaseUrl: string | null;
  redisUrl: string | null;
  realtimePort: number;
  realtimeHost: string;
  tlsCertPath: string | null;
  tlsKeyPath: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** HMAC secret for API key hashes. Every node of one deployment must share it. */
  keySecret: string;
  /** Engine worker threads (default: number of cores). */
  workerThreads: number;
  /** Engine tasks allowed to wait for a worker before requests get 503 SERVICE_OVERLOADED. */
  engineQueueMax: number;
  /** PocketSphinx decoders kept warm per settings profile (default: number of cores). */
  sttDecoders: number;
  /** Create the decoders at start (default) or on first use (tests and tools). */
  sttPreload: boolean;
  /** Long recordings in pieces recognized in parallel (docs/stt.md "Long recordings"). */
  sttLong: SttLongConfig;
  /** Bearer token for /metrics; null = metrics only on metricsPort (if set). */
  metricsToken: string | null;
  metricsPort: number | null;
  /** Real-time streams: maximum session length in seconds. */
  realtimeMaxSessionSeconds: number;
  /** No audio and no KeepAlive for this long closes a live stream, in every protocol (REALTIME_IDLE_TIMEOUT_SECONDS). */
  realtimeIdleTimeoutSeconds: number;
  /** Create the demo account and key on first start with an empty database. */
  seedDemo: boolean;
  /** Directory for optional neural model files (sherpa-onnx). */
  modelsDir: string;
  /** Loaded neural models (src/engines/model-lifecycle.ts). */
  models: ModelLifecycleConfig;
  /**
   * Behind a reverse proxy: take the client address, scheme and host from X-Forwarded-For/-Proto/-Host
   * (Fastify's trustProxy). Decides the dashboard cookie's Secure flag and the sign-in limit's address.
   */
  trustProxy: boolean;
  /** Ceilings on the audio of one TTS request (seconds); over them is 400 AUDIO_TOO_LONG. */
  ttsLimits: TtsLimits;
  /** Asynchronous jobs and their URL downloads (docs/jobs.md). */
  jobs: JobsConfig;
  /** The Wyoming server (Home Assistant's local voice protocol); null when WYOMING_PORT is unset. */
  wyoming: WyomingConfig | null;
  product: ProductConfig;
}

export interface WyomingConfig {
  port: number;
  host: string;
  /** The key whose account every Wyoming request is billed to (authenticated per request). */
  apiKey: string;
}

export interface JobsConfig {
  /** Finished jobs (record and result) are purged this many days after they end. */
  retentionDays: number;
  /** Largest upload or URL download a job takes, in bytes. */
  maxBytes: number;
  /** Let URL downloads and webhooks reach loopback/private/link-local addresses (trusted networks only). */
  fetchAllowPrivate: boolean;
  /** Host names (lower case) that may be fetched whatever their addresses. */
  fetchAllowHosts: string[];
  /** Jobs one node runs at once (PARLA_JOB_CONCURRENCY, default the engine worker count). */
  concurrency: number;
  /**
   * A running job's lease (PARLA_JOB_LEASE_SECONDS, default 60): renewed every quarter of it while
   * the job runs, so a dead node's jobs are taken over this long after it died.
   */
  leaseSeconds: number;
}

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

export interface TtsLimits {
  /** /tts/generate: speech and silence together. */
  maxAudioSeconds: number;
  /** /tts/stream (up to 50,000 characters of text, so more than a file). */
  maxStreamAudioSeconds: number;
  /** /tts/generate: all break tags together (each is clamped to 20 s on its own). */
  maxBreakSeconds: number;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function str(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === null) return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A comma-separated list of installed model names (folder names). */
function modelNames(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === null) return [];
  const names = raw.split(',').map((n) => n.trim()).filter(Boolean);
  for (const n of names) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(n)) throw new ConfigError(`${name}: "${n}" is not a model name (letters, digits, ".", "_", "-")`);
  }
  return [...new Set(names)];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
}

function validateProduct(p: unknown): ProductConfig {
  if (!isObject(p) || !isObject(p.plans) || !isObject(p.pricing) || !isObject(p.ttsBindings) || !isObject(p.sttBindings)) {
    throw new ConfigError('product config needs plans, pricing, ttsBindings and sttBindings');
  }
  for (const plan of ['free', 'basic', 'pro', 'enterprise']) {
    const c = p.plans[plan];
    if (!isObject(c)) throw new ConfigError(`plans.${plan} is missing`);
    for (const f of ['requestsPerMinute', 'requestsPerHour', 'concurrent', 'monthlyCharacters']) {
      if (!Number.isInteger(c[f]) || (c[f] as number) < 0) throw new ConfigError(`plans.${plan}.${f} must be a whole number`);
    }
    if (!Array.isArray(c.ttsModels)) throw new ConfigError(`plans.${plan}.ttsModels must be a list`);
  }
  const pricing = p.pricing as Record<string, unknown>;
  for (const table of ['ttsCreditsPerCharacter', 'sttCreditsPerSecond']) {
    const t = pricing[table];
    if (!isObject(t)) throw new ConfigError(`pricing.${table} is missing`);
    for (const [model, rate] of Object.entries(t)) {
      if (!Number.isInteger(rate) || (rate as number) < 0) throw new ConfigError(`pricing.${table}.${model} must be a whole number`);
    }
  }
  const openai = isObject(p.openai) ? p.openai : {};
  for (const table of ['ttsModels', 'sttModels', 'voices']) {
    const t = openai[table] ?? {};
    if (!isObject(t) || !Object.values(t).every((v) => typeof v === 'string' && v !== '')) throw new ConfigError(`openai.${table} must map names to names`);
  }
  const deepgram = isObject(p.deepgram) ? p.deepgram : {};
  for (const table of ['sttModels', 'ttsModels', 'voices']) {
    const t = deepgram[table] ?? {};
    if (!isObject(t) || !Object.values(t).every((v) => typeof v === 'string' && v !== '')) throw new ConfigError(`deepgram.${table} must map names to names`);
  }
  return {
    ...p,
    openai: { ttsModels: openai.ttsModels ?? {}, sttModels: openai.sttModels ?? {}, voices: openai.voices ?? {} },
    deepgram: { sttModels: deepgram.sttModels ?? {}, ttsModels: deepgram.ttsModels ?? {}, voices: deepgram.voices ?? {} },
  } as unknown as ProductConfig;
}

function loadKeySecret(env: Env, dataDir: string): string {
  const fromEnv = str(env, 'PARLA_KEY_SECRET');
  if (fromEnv) {
    if (fromEnv.length < 16) throw new ConfigError('PARLA_KEY_SECRET must be at least 16 characters');
    return fromEnv;
  }
  // Single-node default: a random secret kept beside the SQLite file. Multi-node deployments set
  // PARLA_KEY_SECRET on every node (docs/operations.md).
  const file = path.join(dataDir, 'key-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(str(env, 'PARLA_DATA_DIR') ?? path.join(PROJECT_ROOT, 'data'));
  const databaseUrl = str(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)');
  }
  const redisUrl = str(env, 'REDIS_URL');
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must be a redis:// URL');
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info') as Config['logLevel'];
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  const tlsCertPath = str(env, 'TLS_CERT_PATH');
  const tlsKeyPath = str(env, 'TLS_KEY_PATH');
  if ((tlsCertPath === null) !== (tlsKeyPath === null)) throw new ConfigError('TLS_CERT_PATH and TLS_KEY_PATH go together');
  const cores = availableParallelism();
  const workerThreads = int(env, 'PARLA_WORKERS', cores, 1, 256);

  let product = readJson(path.join(PROJECT_ROOT, 'config', 'parla.json'));
  const override = str(env, 'PARLA_CONFIG');
  if (override) product = deepMerge(product, readJson(path.resolve(override)));

  const metricsPortRaw = str(env, 'METRICS_PORT');
  const wyomingPortRaw = str(env, 'WYOMING_PORT');
  let wyoming: WyomingConfig | null = null;
  if (wyomingPortRaw !== null) {
    const apiKey = str(env, 'WYOMING_API_KEY');
    // Wyoming carries no credentials: without a key there is no account to bill, so refuse to start.
    if (apiKey === null) throw new ConfigError('WYOMING_PORT needs WYOMING_API_KEY (the key whose account Wyoming requests are billed to)');
    if (!/^svc_(live|test)_/.test(apiKey)) throw new ConfigError('WYOMING_API_KEY must be a Parla API key (svc_live_... or svc_test_...)');
    wyoming = { port: int(env, 'WYOMING_PORT', 10300, 0, 65535), host: str(env, 'WYOMING_HOST') ?? '127.0.0.1', apiKey };
  }
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    databaseUrl,
    redisUrl,
    realtimePort: int(env, 'REALTIME_PORT', 8443, 0, 65535),
    realtimeHost: str(env, 'REALTIME_HOST') ?? str(env, 'HOST') ?? '127.0.0.1',
    tlsCertPath,
    tlsKeyPath,
    logLevel,
    keySecret: loadKeySecret(env, dataDir),
    workerThreads,
    engineQueueMax: int(env, 'PARLA_QUEUE_MAX', workerThreads * 8, 0, 100000),
    sttDecoders: int(env, 'PARLA_STT_DECODERS', cores, 1, 64),
    sttPreload: bool(env, 'PARLA_STT_PRELOAD', true),
    sttLong: {
      parallel: bool(env, 'PARLA_STT_PARALLEL', true),
      thresholdSeconds: int(env, 'PARLA_STT_LONG_SECONDS', 60, 10, 86400),
      pieceSeconds: int(env, 'PARLA_STT_PIECE_SECONDS', 30, 5, 600),
    },
    metricsToken: str(env, 'METRICS_TOKEN'),
    metricsPort: metricsPortRaw === null ? null : int(env, 'METRICS_PORT', 9464, 0, 65535),
    realtimeMaxSessionSeconds: int(env, 'REALTIME_MAX_SESSION_SECONDS', 3600, 10, 86400),
    realtimeIdleTimeoutSeconds: int(env, 'REALTIME_IDLE_TIMEOUT_SECONDS', 10, 1, 3600),
    seedDemo: bool(env, 'PARLA_SEED_DEMO', true),
    modelsDir: path.resolve(str(env, 'PARLA_MODELS_DIR') ?? path.join(dataDir, 'models')),
    models: {
      ttlSeconds: int(env, 'PARLA_MODEL_TTL', 600, 1, 604800),
      // Default: half of this machine's memory.
      memoryMB: int(env, 'PARLA_MODEL_MEMORY_MB', Math.max(256, Math.floor(totalmem() / 1048576 / 2)), 1, 16777216),
      preload: modelNames(env, 'PARLA_MODELS_PRELOAD'),
      loadWaitSeconds: int(env, 'PARLA_MODEL_LOAD_WAIT', 60, 1, 3600),
    },
    trustProxy: bool(env, 'PARLA_TRUST_PROXY', false),
    // Far above what the longest text allows at the slowest speed (5,000 characters at speed 0.5
    // are about 12 minutes; 50,000 about 2 hours): only markup-made audio reaches them.
    ttsLimits: {
      maxAudioSeconds: int(env, 'PARLA_TTS_MAX_AUDIO_SECONDS', 1200, 1, 86400),
      maxStreamAudioSeconds: int(env, 'PARLA_TTS_STREAM_MAX_AUDIO_SECONDS', 10800, 1, 86400),
      maxBreakSeconds: int(env, 'PARLA_TTS_MAX_BREAK_SECONDS', 300, 0, 86400),
    },
    jobs: {
      retentionDays: int(env, 'PARLA_JOB_RETENTION_DAYS', 7, 1, 3650),
      maxBytes: int(env, 'PARLA_JOB_MAX_BYTES', 1024 ** 3, 1024, 64 * 1024 ** 3),
      fetchAllowPrivate: bool(env, 'PARLA_FETCH_ALLOW_PRIVATE', false),
      fetchAllowHosts: (str(env, 'PARLA_FETCH_ALLOW_HOSTS') ?? '').split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== ''),
      concurrency: int(env, 'PARLA_JOB_CONCURRENCY', workerThreads, 0, 256),
      leaseSeconds: int(env, 'PARLA_JOB_LEASE_SECONDS', 60, 4, 3600),
    },
    wyoming,
    product: validateProduct(product),
  };
}
