// The product's settings: config/parla.json (+ the optional PARLA_CONFIG file merged over it), the
// plans, prices, engine bindings and the dialects' name tables. Read once at start and checked here.

import path from 'node:path';
import { readFileSync } from 'node:fs';
import type { Plan } from '../domain/accounts.js';
import { ConfigError, str, type Env } from '../domain/env-values.js';

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

/** config/parla.json under `projectRoot`, with PARLA_CONFIG's file merged over it, checked. */
export function loadProduct(env: Env, projectRoot: string): ProductConfig {
  let product = readJson(path.join(projectRoot, 'config', 'parla.json'));
  const override = str(env, 'PARLA_CONFIG');
  if (override) product = deepMerge(product, readJson(path.resolve(override)));
  return validateProduct(product);
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
    if (!isObject(t) || !Object.values(t).every((v) => typeof v === 'string' && v !== ''))
      throw new ConfigError(`openai.${table} must map names to names`);
  }
  const deepgram = isObject(p.deepgram) ? p.deepgram : {};
  for (const table of ['sttModels', 'ttsModels', 'voices']) {
    const t = deepgram[table] ?? {};
    if (!isObject(t) || !Object.values(t).every((v) => typeof v === 'string' && v !== ''))
      throw new ConfigError(`deepgram.${table} must map names to names`);
  }
  return {
    ...p,
    openai: { ttsModels: openai.ttsModels ?? {}, sttModels: openai.sttModels ?? {}, voices: openai.voices ?? {} },
    deepgram: { sttModels: deepgram.sttModels ?? {}, ttsModels: deepgram.ttsModels ?? {}, voices: deepgram.voices ?? {} },
  } as unknown as ProductConfig;
}
