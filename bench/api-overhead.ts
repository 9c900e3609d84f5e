// API overhead (issue 6): GET /api/v1/models with authentication, rate limiting and concurrency
// accounting, against a bare Fastify route returning the same JSON without them; same load
// generator (autocannon), same run, alternating runs, medians; with the memory limiter and with the
// Redis limiter. Both servers run in child processes, so neither shares an event loop with autocannon.
// CPU per request is read from /proc for Parla, the bare server and Redis, and for the load generator (this process).
// Run: node --import tsx bench/api-overhead.ts   (Redis at 127.0.0.1:6379 for the second row)
// RUNS (default 3) runs of SECONDS (default 5) each, CONNECTIONS (default 20).
import { cpus } from 'node:os';
import { overheadSideBySide, type Load } from './api-load.js';
import { median, table } from './lib.js';

const RUNS = Number(process.env.RUNS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);
/** The goals of issue 32 (docs/benchmarks.md), per limiter. */
const GOALS = { memory: 0.8, redis: 0.6 } as const;

const rows: Array<Record<string, string | number>> = [];
const loads: number[] = [];
for (const limiter of (process.env.LIMITERS ?? 'memory,redis').split(',') as Array<'memory' | 'redis'>) {
  // Limits high enough that every request passes: the point is the cost of the accounting itself.
  const { parla, bare: base } = await overheadSideBySide(limiter, { runs: RUNS, seconds: SECONDS, connections: CONNECTIONS, loads });
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
    goal: `>= ${GOALS[limiter]}`,
    met: m(parla, 'rps') / m(base, 'rps') >= GOALS[limiter] ? 'met' : 'not met',
  });
}
console.log(
  `API overhead, ${new Date().toISOString()}, ${RUNS} runs of ${SECONDS} s each, ${CONNECTIONS} connections, medians, load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} on ${cpus().length} cores\n`,
);
console.log(table(rows));
