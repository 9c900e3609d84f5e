// API overhead (issue 6): GET /api/v1/models with authentication, rate limiting and concurrency
// accounting, against a bare Fastify route returning the same JSON without them; same load
// generator (autocannon), same run, alternating runs, medians; with the memory limiter and with the
// Redis limiter. Both servers run in child processes, so neither shares an event loop with autocannon.
// CPU per request is read from /proc for Parla, the bare server and Redis, and for the load generator (this process).
// Run: node --import tsx bench/api-overhead.ts   (Redis at 127.0.0.1:6379 for the second row)
// RUNS (default 3) runs of SECONDS (default 5) each, CONNECTIONS (default 20).
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { median, startBenchServer, table } from './lib.js';

const RUNS = Number(process.env.RUNS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);

interface Load { rps: number; p50: number; p99: number; non2xx: number; cpuUsPerRequest: number; redisUsPerRequest: number; loadGenUsPerRequest: number }

/** CPU time (user + system) the process has used, ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The local Redis server's pid, to read its CPU time too (null when there is none to see). */
function redisPid(): number | null {
  try {
    return Number(execFileSync('pidof', ['redis-server']).toString().trim().split(' ')[0]) || null;
  } catch {
    return null;
  }
}

async function load(url: string, pid: number, headers: Record<string, string> = {}, redis: number | null = null): Promise<Load> {
  const before = cpuMs(pid);
  const redisBefore = redis ? cpuMs(redis) : 0;
  const mine = process.cpuUsage();
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  const n = Math.max(1, r.requests.total);
  const gen = process.cpuUsage(mine);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx + r.errors + r.timeouts,
    cpuUsPerRequest: ((cpuMs(pid) - before) * 1000) / n,
    redisUsPerRequest: redis ? ((cpuMs(redis) - redisBefore) * 1000) / n : 0,
    // The load generator runs in this process.
    loadGenUsPerRequest: (gen.user + gen.system) / n,
  };
}

async function startBare(body: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
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

// Limits high enough that every request passes: the point is the cost of the accounting itself.
const override = path.join(mkdtempSync(path.join(tmpdir(), 'bench-api-')), 'parla.json');
writeFileSync(override, JSON.stringify({ plans: { enterprise: { requestsPerMinute: 100_000_000, requestsPerHour: 100_000_000, concurrent: 1000 } } }));
const rows: Array<Record<string, string | number>> = [];
const loads: number[] = [];
for (const limiter of (process.env.LIMITERS ?? 'memory,redis').split(',') as Array<'memory' | 'redis'>) {
  const server = await startBenchServer({ PARLA_CONFIG: override, ...(limiter === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}) });
  const res = await fetch(`${server.url}/api/v1/models`, { headers: { 'x-api-key': server.apiKey } });
  if (res.status !== 200) throw new Error(`GET /api/v1/models answered ${res.status}`);
  const bare = await startBare(await res.text());
  const parla: Load[] = [];
  const base: Load[] = [];
  try {
    // Warm both up (JIT, connection pools) before measuring.
    await autocannon({ url: bare.url, connections: CONNECTIONS, duration: 1 });
    await autocannon({ url: `${server.url}/api/v1/models`, connections: CONNECTIONS, duration: 1, headers: { 'x-api-key': server.apiKey } });
    for (let i = 0; i < RUNS; i++) {
      loads.push(loadavg()[0]!);
      base.push(await load(bare.url, bare.pid));
      parla.push(await load(`${server.url}/api/v1/models`, server.proc.pid!, { 'x-api-key': server.apiKey }, limiter === 'redis' ? redisPid() : null));
    }
  } finally {
    await bare.stop();
    await server.stop();
  }
  const m = (xs: Load[], k: keyof Load) => median(xs.map((x) => x[k]));
  rows.push({
    limiter,
    parla_rps: Math.round(m(parla, 'rps')),
    bare_rps: Math.round(m(base, 'rps')),
    ratio: m(parla, 'rps') / m(base, 'rps'),
    parla_p50_ms: m(parla, 'p50'),
    bare_p50_ms: m(base, 'p50'),
    parla_p99_ms: m(parla, 'p99'),
    parla_not_200: parla.reduce((a, x) => a + x.non2xx, 0),
    parla_cpu_us_per_req: Math.round(m(parla, 'cpuUsPerRequest')),
    bare_cpu_us_per_req: Math.round(m(base, 'cpuUsPerRequest')),
    redis_cpu_us_per_req: limiter === 'redis' ? Math.round(m(parla, 'redisUsPerRequest')) : '-',
    loadgen_cpu_us_per_req: Math.round(m(parla, 'loadGenUsPerRequest')),
    goal: '>= 0.5',
    met: m(parla, 'rps') / m(base, 'rps') >= 0.5 ? 'met' : 'not met',
  });
}
console.log(`API overhead, ${new Date().toISOString()}, ${RUNS} runs of ${SECONDS} s each, ${CONNECTIONS} connections, medians, load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} on ${cpus().length} cores\n`);
console.log(table(rows));
