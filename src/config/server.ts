// The HTTP server's settings: where it listens, the databases, logging, the API key secret, metrics,
// the reverse proxy, the demo account.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bool, ConfigError, int, str, type Env } from '../domain/env-values.js';

export interface ServerSettings {
  port: number;
  host: string;
  dataDir: string;
  /** postgres:// URL, or null for SQLite in dataDir. */
  databaseUrl: string | null;
  redisUrl: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** HMAC secret for API key hashes. Every node of one deployment must share it. */
  keySecret: string;
  /** Bearer token for /metrics; null = metrics only on metricsPort (if set). */
  metricsToken: string | null;
  metricsPort: number | null;
  /**
   * Behind a reverse proxy: take the client address, scheme and host from X-Forwarded-For/-Proto/-Host
   * (Fastify's trustProxy). Decides the dashboard cookie's Secure flag and the sign-in limit's address.
   */
  trustProxy: boolean;
  /** Create the demo account and key on first start with an empty database. */
  seedDemo: boolean;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function serverSettings(env: Env, dataDir: string): ServerSettings {
  const databaseUrl = str(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)');
  }
  const redisUrl = str(env, 'REDIS_URL');
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL must be a redis:// URL');
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info') as ServerSettings['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const metricsPortRaw = str(env, 'METRICS_PORT');
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    databaseUrl,
    redisUrl,
    logLevel,
    keySecret: loadKeySecret(env, dataDir),
    metricsToken: str(env, 'METRICS_TOKEN'),
    metricsPort: metricsPortRaw === null ? null : int(env, 'METRICS_PORT', 9464, 0, 65535),
    trustProxy: bool(env, 'PARLA_TRUST_PROXY', false),
    seedDemo: bool(env, 'PARLA_SEED_DEMO', true),
  };
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
