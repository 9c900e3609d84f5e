// Where an authenticated request's time goes (issue 32): CPU profiles (`node --cpu-prof`) of Parla's
// compiled server answering GET /api/v1/models with a key, and of the bare Fastify route
// (bench/bare-models-server.ts) answering the same JSON, each under the same autocannon load one
// after the other; prints the sampled time per request by function (self time), Parla against
// the bare route, largest differences first.
// Run: node --import tsx bench/api-profile.ts   LIMITER memory|redis (default memory), SECONDS
// (default 8), CONNECTIONS (default 20), TOP (default 30).
// V8's profiler samples the thread's wall clock: a sample taken while the process was preempted
// inside a system call (on a loaded machine, mostly the response's writev) counts as that call's.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { highLimitsConfig } from './api-load.js';
import { startBenchServer } from './lib.js';

const LIMITER = process.env.LIMITER ?? 'memory';
const SECONDS = Number(process.env.SECONDS ?? 8);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);
const TOP = Number(process.env.TOP ?? 30);

interface Profile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The largest profile in `dir`: the main thread's (worker threads write their own, smaller ones). */
function mainProfile(dir: string): Profile {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const biggest = files.sort((a, b) => statSync(path.join(dir, b)).size - statSync(path.join(dir, a)).size)[0];
  if (!biggest) throw new Error(`no profile in ${dir}`);
  return JSON.parse(readFileSync(path.join(dir, biggest), 'utf8')) as Profile;
}

/**
 * Self time per request (µs) by function, over the span in which requests were being answered
 * (first to last sample under Fastify's routeHandler: start-up and shutdown left out), idle excluded.
 */
function perRequest(p: Profile, requests: number): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (id: number): string => {
    const f = byId.get(id)!.callFrame;
    const where = f.url
      .replace(/.*node_modules\//, '')
      .replace(/.*\/dist\//, '')
      .replace(/.*\/bench\//, 'bench/');
    return `${f.functionName || '(anonymous)'} ${where}${where ? `:${f.lineNumber + 1}` : ''}`;
  };
  let t = p.startTime;
  const times = p.timeDeltas.map((d) => (t += d));
  const inRoute = (id: number | undefined): boolean => {
    for (; id !== undefined; id = parent.get(id)) if (byId.get(id)!.callFrame.functionName === 'routeHandler') return true;
    return false;
  };
  const marked = times.filter((_, i) => inRoute(p.samples[i]));
  const [lo, hi] = [marked[0] ?? 0, marked.at(-1) ?? 0];
  const self = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    if (times[i]! < lo || times[i]! > hi) continue;
    const k = name(p.samples[i]!);
    if (k.startsWith('(idle)')) continue;
    self.set(k, (self.get(k) ?? 0) + (p.timeDeltas[i + 1] ?? 0));
  }
  // The load ran SECONDS; the span is a little shorter: scale the requests to it.
  const share = Math.min(1, (hi - lo) / 1e6 / SECONDS);
  for (const [k, v] of self) self.set(k, v / (requests * share));
  return self;
}

async function loadAndProfile(url: string, headers: Record<string, string>): Promise<number> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  if (r.non2xx + r.errors > 0) throw new Error(`${url}: ${r.non2xx} answers not 2xx, ${r.errors} errors`);
  return r.requests.total;
}

const work = mkdtempSync(path.join(tmpdir(), 'api-profile-'));
const dirs = { parla: path.join(work, 'parla'), bare: path.join(work, 'bare') };
const load0 = loadavg()[0]!;

process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dirs.parla}`;
const server = await startBenchServer({
  PARLA_CONFIG: highLimitsConfig(),
  ...(LIMITER === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}),
});
const key = { 'x-api-key': server.apiKey };
const body = await (await fetch(`${server.url}/api/v1/models`, { headers: key })).text();
let parlaRequests: number;
try {
  parlaRequests = await loadAndProfile(`${server.url}/api/v1/models`, key);
} finally {
  await server.stop();
}

writeFileSync(path.join(work, 'models.json'), body);
const bare = spawn(
  process.execPath,
  [`--cpu-prof`, `--cpu-prof-dir=${dirs.bare}`, '--import', 'tsx', 'bench/bare-models-server.ts', path.join(work, 'models.json')],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const [port] = (await once(bare.stdout!, 'data')) as [Buffer];
let bareRequests: number;
try {
  bareRequests = await loadAndProfile(`http://127.0.0.1:${port.toString().trim()}/api/v1/models`, {});
} finally {
  bare.kill('SIGTERM');
  await once(bare, 'close');
}

const parla = perRequest(mainProfile(dirs.parla), parlaRequests);
const base = perRequest(mainProfile(dirs.bare), bareRequests);
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
console.log(
  `API profile, ${LIMITER} limiter, ${new Date().toISOString()}, ${SECONDS} s each, ${CONNECTIONS} connections, load average ${load0.toFixed(1)}-${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
);
console.log(
  `Parla ${Math.round(parlaRequests / SECONDS)} req/s, ${sum(parla).toFixed(1)} µs sampled per request; bare ${Math.round(bareRequests / SECONDS)} req/s, ${sum(base).toFixed(1)} µs (profiles in ${work})\n`,
);
console.log('  Parla   bare   diff  function (self time, µs per request)');
const rows = [...new Set([...parla.keys(), ...base.keys()])].map((k) => [k, parla.get(k) ?? 0, base.get(k) ?? 0] as const);
for (const [k, a, b] of rows.sort((x, y) => y[1] - y[2] - (x[1] - x[2])).slice(0, TOP)) {
  console.log(`${a.toFixed(2).padStart(7)}${b.toFixed(2).padStart(7)}${(a - b).toFixed(2).padStart(7)}  ${k}`);
}
