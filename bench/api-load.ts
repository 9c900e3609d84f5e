// What bench/api-overhead.ts and bench/api-overhead-ab.ts share: the bare Fastify baseline in a
// process of its own, a plan with limits no request reaches, and one autocannon run with the CPU
// each process spent on it.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startBenchServer } from './lib.js';

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  cpuUsPerRequest: number;
  redisUsPerRequest: number;
  loadGenUsPerRequest: number;
}

/** CPU time (user + system) the process has used, ms (Linux /proc; clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The local Redis server's pid, to read its CPU time too (null when there is none to see). */
export function redisPid(): number | null {
  try {
    return Number(execFileSync('pidof', ['redis-server']).toString().trim().split(' ')[0]) || null;
  } catch {
    return null;
  }
}

/** A config file whose enterprise plan no request reaches: the point is the cost of the accounting itself. */
export function highLimitsConfig(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bench-api-')), 'parla.json');
  writeFileSync(
    file,
    JSON.stringify({ plans: { enterprise: { requestsPerMinute: 100_000_000, requestsPerHour: 100_000_000, concurrent: 1000 } } }),
  );
  return file;
}

/** One autocannon run against `url`, with the CPU per request of the server (`pid`), Redis and this process (the load generator). */
export async function load(
  url: string,
  pid: number,
  opts: { connections: number; seconds: number; headers?: Record<string, string>; redis?: number | null },
): Promise<Load> {
  const before = cpuMs(pid);
  const redisBefore = opts.redis ? cpuMs(opts.redis) : 0;
  const mine = process.cpuUsage();
  const r = await autocannon({ url, connections: opts.connections, duration: opts.seconds, headers: opts.headers ?? {} });
  const n = Math.max(1, r.requests.total);
  const gen = process.cpuUsage(mine);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx + r.errors + r.timeouts,
    cpuUsPerRequest: ((cpuMs(pid) - before) * 1000) / n,
    redisUsPerRequest: opts.redis ? ((cpuMs(opts.redis) - redisBefore) * 1000) / n : 0,
    loadGenUsPerRequest: (gen.user + gen.system) / n,
  };
}

/** Warms a server up (JIT, connection pools) before anything is measured. */
export async function warmUp(url: string, connections: number, headers: Record<string, string> = {}): Promise<void> {
  await autocannon({ url, connections, duration: 1, headers });
}

/** The bare baseline (bench/bare-models-server.ts) answering `body`. */
export async function startBare(body: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-bare-'));
  const file = path.join(dir, 'models.json');
  writeFileSync(file, body);
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-models-server.ts', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(proc.stdout!, 'data')) as [Buffer];
  return {
    url: `http://127.0.0.1:${chunk.toString().trim()}/api/v1/models`,
    pid: proc.pid!,
    async stop() {
      proc.kill('SIGTERM');
      await once(proc, 'close');
    },
  };
}

/**
 * GET /api/v1/models on a fresh Parla server (the memory or the Redis limiter, limits no request
 * reaches) against the bare route answering the same JSON, side by side: `runs` alternating runs
 * of `seconds` each (bare first, then Parla), both warmed up first. The load average before each run in `loads`.
 */
export async function overheadSideBySide(
  limiter: 'memory' | 'redis',
  opts: { runs: number; seconds: number; connections: number; loads?: number[] },
): Promise<{ parla: Load[]; bare: Load[] }> {
  const server = await startBenchServer({
    PARLA_CONFIG: highLimitsConfig(),
    ...(limiter === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}),
  });
  const headers = { 'x-api-key': server.apiKey };
  const url = `${server.url}/api/v1/models`;
  const parla: Load[] = [];
  const base: Load[] = [];
  try {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`GET /api/v1/models answered ${res.status}`);
    const bare = await startBare(await res.text());
    try {
      await warmUp(bare.url, opts.connections);
      await warmUp(url, opts.connections, headers);
      for (let i = 0; i < opts.runs; i++) {
        opts.loads?.push(loadavg()[0]!);
        base.push(await load(bare.url, bare.pid, { connections: opts.connections, seconds: opts.seconds }));
        const redis = limiter === 'redis' ? redisPid() : null;
        parla.push(await load(url, server.proc.pid!, { connections: opts.connections, seconds: opts.seconds, headers, redis }));
      }
    } finally {
      await bare.stop();
    }
  } finally {
    await server.stop();
  }
  return { parla, bare: base };
}
