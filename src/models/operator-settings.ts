// The operator's settings kept in the data directory (`operator-settings.json`), over the product
// configuration (config/parla.json): today, which installed model serves a product model first
// (`parla models bind cipher-max whisper-base.en`). Written by the CLI; `readOperatorSettings` is
// what the server reads (at start) to put the bound model at the head of that product model's
// engine chain. A missing file means no settings; a malformed one is an error, not silently ignored.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MODEL_NAME } from './formats.js';

export interface OperatorSettings {
  /** Product model (e.g. "cipher-max", "aura-max") -> installed model name (e.g. "whisper-base.en"). */
  modelBindings: Record<string, string>;
}

export class OperatorSettingsError extends Error {}

const PRODUCT_MODEL = /^[a-z][a-z0-9-]{0,63}$/;

export function operatorSettingsPath(dataDir: string): string {
  return path.join(dataDir, 'operator-settings.json');
}

export function readOperatorSettings(dataDir: string): OperatorSettings {
  const file = operatorSettingsPath(dataDir);
  if (!existsSync(file)) return { modelBindings: {} };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new OperatorSettingsError(`${file} is not valid JSON (${(err as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new OperatorSettingsError(`${file} must hold a JSON object`);
  const raw = (data as Record<string, unknown>).modelBindings ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new OperatorSettingsError(`${file}: modelBindings must be an object`);
  const modelBindings: Record<string, string> = {};
  for (const [product, model] of Object.entries(raw)) {
    if (!PRODUCT_MODEL.test(product)) throw new OperatorSettingsError(`${file}: "${product}" is not a product model name`);
    if (typeof model !== 'string' || !MODEL_NAME.test(model))
      throw new OperatorSettingsError(`${file}: modelBindings.${product} must be an installed model's name`);
    modelBindings[product] = model;
  }
  return { ...(data as object), modelBindings };
}

export function writeOperatorSettings(dataDir: string, settings: OperatorSettings): void {
  mkdirSync(dataDir, { recursive: true });
  const file = operatorSettingsPath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(settings, null, 2)}\n`);
  renameSync(tmp, file);
}
