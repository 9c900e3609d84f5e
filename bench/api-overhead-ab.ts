// API overhead, this checkout against an earlier commit (BASE, e.g. BASE=HEAD~1): both builds of
// Parla and the bare route side by side, in rotating order within each run, so a change's effect
// is measured on the same machine in the same minutes (single runs of api-overhead.ts swing by
// ±0.1 in ratio with the machine's state). BASE is checked out with `git worktree` into a
// temporary folder (sharing this checkout's node_modules) and built there.
// Run: BASE=<commit> node --import tsx bench/api-overhead-ab.ts
// LIMITER memory|redis (default redis), RUNS (default 6), SECONDS (default 3), CONNECTIONS (default 20).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { highLimitsConfig, load, redisPid, startBare, warmUp, type Load } from './api-load.js';
import { median, startBenchServer, table } from './lib.js';

const BASE = process.env.BASE;
if (!BASE) throw new Error('set BASE to the commit to compare with, e.g. BASE=HEAD~1');
const LIMITER = process.env.LIMITER ?? 'redis';
const RUNS = Number(process.env.RUNS ?? 6);
const SECONDS = Number(process.env.SECONDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);

const here = process.cwd();
const baseDir = path.join(mkdtempSync(path.join(tmpdir(), 'parla-base-')), 'checkout');
execFileSync('git', ['worktree', 'add', '--detach', baseDir, BASE], { stdio: 'ignore' });
symlinkSync(path.join(here, 'node_modules'), path.join(baseDir, 'node_modules'));
const addon = 'native/pocketsphinx/build';
if (existsSync(path.join(here, addon))) execFileSync('cp', ['-r', path.join(here, addon), path.join(baseDir, addon)]);

const env = { PARLA_CONFIG: highLimitsConfig(), ...(LIMITER === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}) };
const redis = LIMITER === 'redis' ? redisPid() : null;
const servers = { base: await startBenchServer(env, baseDir), head: await startBenchServer(env, here) };
const key = (s: { apiKey: string }) => ({ 'x-api-key': s.apiKey });
const bare = await startBare(await (await fetch(`${servers.head.url}/api/v1/models`, { headers: key(servers.head) })).text());
const targets = {
  bare: { url: bare.url, pid: bare.pid, headers: {} },
  base: { url: `${servers.base.url}/api/v1/models`, pid: servers.base.proc.pid!, headers: key(servers.base) },
  head: { url: `${servers.head.url}/api/v1/models`, pid: servers.head.proc.pid!, headers: key(servers.head) },
};
const results: Record<keyof typeof targets, Load[]> = { bare: [], base: [], head: [] };
const loads: number[] = [];
try {
  for (const t of Object.values(targets)) await warmUp(t.url, CONNECTIONS, t.headers);
  for (let i = 0; i < RUNS; i++) {
    loads.push(loadavg()[0]!);
    for (const name of i % 2 ? (['bare', 'head', 'base'] as const) : (['bare', 'base', 'head'] as const)) {
      const t = targets[name];
      results[name].push(await load(t.url, t.pid, { connections: CONNECTIONS, seconds: SECONDS, headers: t.headers, redis }));
    }
  }
} finally {
  await bare.stop();
  await servers.base.stop();
  await servers.head.stop();
  rmSync(path.dirname(baseDir), { recursive: true, force: true });
  execFileSync('git', ['worktree', 'prune']);
}
const m = (xs: Load[], k: keyof Load) => median(xs.map((x) => x[k]));
const row = (name: 'base' | 'head') => ({
  build: name === 'base' ? `${BASE} (base)` : 'this checkout',
  ratio_median: median(results[name].map((x, i) => x.rps / results.bare[i]!.rps)),
  ratios: results[name].map((x, i) => (x.rps / results.bare[i]!.rps).toFixed(2)).join(' '),
  parla_cpu_us_per_req: Math.round(m(results[name], 'cpuUsPerRequest')),
  redis_cpu_us_per_req: redis ? Math.round(m(results[name], 'redisUsPerRequest')) : '-',
  loadgen_cpu_us_per_req: Math.round(m(results[name], 'loadGenUsPerRequest')),
  not_200: results[name].reduce((a, x) => a + x.non2xx, 0),
});
console.log(
  `API overhead A/B, ${LIMITER} limiter, ${new Date().toISOString()}, ${RUNS} runs of ${SECONDS} s, ${CONNECTIONS} connections, bare route ${Math.round(m(results.bare, 'rps'))} req/s (${Math.round(m(results.bare, 'cpuUsPerRequest'))} µs CPU per request), load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} on ${cpus().length} cores\n`,
);
console.log(table([row('base'), row('head')]));
