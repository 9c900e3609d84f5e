// API overhead (issue 6): GET /api/v1/models with authentication, rate limiting and concurrency
// accounting, against a bare Fastify route returning the same JSON without them; same load
// generator (autocannon), same run, alternating runs, medians; with the memory limiter and with the
// Redis limiter. Both servers run in child processes, so neither shares an event loop with autocannon.
// CPU per request is read from /proc for Parla, the bare server and Redis, and for the load generator (this process).
// Run: node --import tsx bench/api-overhead.ts   (Redis at 127.0.0.1:6379 for the second row)
// RUNS (default 3) runs of SECONDS (default 5) each, CONNECTIONS (default 20).
import { cpus, loadavg } from 'node:os';
import { highLimitsConfig, load as loadOnce, redisPid, startBare, warmUp, type Load } from './api-load.js';
import { median, startBenchServer, table } from './lib.js';

const RUNS = Number(process.env.RUNS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);

const load = (url: string, pid: number, headers: Record<string, string> = {}, redis: number | null = null) => loadOnce(url, pid, { connections: CONNECTIONS, seconds: SECONDS, headers, redis });

// Limits high enough that every request passes: the point is the cost of the accounting itself.
const override = highLimitsConfig();
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
    await warmUp(bare.url, CONNECTIONS);
    await warmUp(`${server.url}/api/v1/models`, CONNECTIONS, { 'x-api-key': server.apiKey });
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
