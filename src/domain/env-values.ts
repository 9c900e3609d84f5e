// Reading one environment variable as a typed value, with the error that names it (src/config.ts
// builds the whole configuration from these; ConfigError stops the start with that message).

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function str(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}

export function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === null) return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A comma-separated list of installed model names (folder names). */
export function modelNames(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === null) return [];
  const names = raw
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(n))
      throw new ConfigError(`${name}: "${n}" is not a model name (letters, digits, ".", "_", "-")`);
  }
  return [...new Set(names)];
}
