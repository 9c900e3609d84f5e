// The asynchronous jobs' settings (docs/jobs.md): retention, size, the runners, the lease, and the
// URL downloads and webhooks (which addresses they may reach, their timers).

import { parseAllowHostEntry } from '../domain/allow-hosts.js';
import { bool, ConfigError, int, str, type Env } from '../domain/env-values.js';

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
  /**
   * Jobs of one account one node runs at once (PARLA_JOB_ACCOUNT_CONCURRENCY, default half the
   * node's, rounded up): the rest of the node's runners stay for other accounts (decision #36).
   */
  accountConcurrency: number;
  /** Limits of a job's URL download (src/net/safe-fetch.ts Limits; PARLA_FETCH_*). */
  download: { connectTimeoutMs: number; idleTimeoutMs: number; totalTimeoutMs: number; minBytesPerSecond: number; rateWindowMs: number };
}

export function jobsConfig(env: Env, workerThreads: number): JobsConfig {
  const concurrency = int(env, 'PARLA_JOB_CONCURRENCY', workerThreads, 0, 256);
  return {
    retentionDays: int(env, 'PARLA_JOB_RETENTION_DAYS', 7, 1, 3650),
    maxBytes: int(env, 'PARLA_JOB_MAX_BYTES', 1024 ** 3, 1024, 64 * 1024 ** 3),
    fetchAllowPrivate: bool(env, 'PARLA_FETCH_ALLOW_PRIVATE', false),
    fetchAllowHosts: allowHosts(str(env, 'PARLA_FETCH_ALLOW_HOSTS') ?? ''),
    concurrency,
    leaseSeconds: int(env, 'PARLA_JOB_LEASE_SECONDS', 60, 4, 3600),
    accountConcurrency: int(env, 'PARLA_JOB_ACCOUNT_CONCURRENCY', Math.max(1, Math.ceil(concurrency / 2)), 1, 256),
    download: {
      connectTimeoutMs: int(env, 'PARLA_FETCH_CONNECT_TIMEOUT_SECONDS', 10, 1, 600) * 1000,
      idleTimeoutMs: int(env, 'PARLA_FETCH_IDLE_TIMEOUT_SECONDS', 30, 1, 3600) * 1000,
      totalTimeoutMs: int(env, 'PARLA_FETCH_TOTAL_TIMEOUT_SECONDS', 1800, 1, 86400) * 1000,
      minBytesPerSecond: int(env, 'PARLA_FETCH_MIN_KB_PER_SECOND', 16, 0, 1_000_000) * 1024,
      rateWindowMs: int(env, 'PARLA_FETCH_RATE_WINDOW_SECONDS', 20, 1, 3600) * 1000,
    },
  };
}

/** PARLA_FETCH_ALLOW_HOSTS: comma-separated host:port entries (src/domain/allow-hosts.ts), each checked here. */
function allowHosts(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  for (const e of entries) {
    const parsed = parseAllowHostEntry(e);
    if (typeof parsed === 'string') throw new ConfigError(`PARLA_FETCH_ALLOW_HOSTS: ${parsed}`);
  }
  return entries;
}
