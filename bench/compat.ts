// Every compatible dialect against the native endpoint for the same work, side by side in one run
// (issue 22: a dialect adds at most 5% to the native time). The cases are the files of
// bench/compat/ (each exports `cases: CompatCase[]`, bench/compat/types.ts): OpenAI, Wyoming, and
// whatever dialect adds its own file. One server for all of them: the compiled `parla serve`
// (bench/lib.ts), with the real-time listener and Wyoming on. For each case both sides run once to
// warm up, then RUNS times taking turns (which goes first alternates, so neither always meets a
// cooler machine); printed per case: the medians, native ms, dialect ms and their ratio, and the
// server process's CPU time per request on each side (utime + stime of /proc/<pid>/stat, all its
// threads: less swayed by other work on the machine than wall time; programs it starts, Flite
// and ffmpeg, are other processes and not counted).
// Run: node --import tsx bench/compat.ts [name filter...]   (RUNS, default 9)
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, startBenchServer, table } from './lib.js';
import type { CompatCase, CompatContext } from './compat/types.js';

const RUNS = Number(process.env.RUNS ?? 9);
const GOAL = 1.05;
const filters = process.argv.slice(2);
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'compat');

/** A free TCP port on the loopback (the server's Wyoming listener has no "port 0" report). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function loadCases(): Promise<CompatCase[]> {
  const out: CompatCase[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.ts') && n !== 'types.ts')
    .sort()) {
    const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { cases?: CompatCase[] };
    if (!Array.isArray(mod.cases)) throw new Error(`bench/compat/${f} exports no cases`);
    out.push(...mod.cases);
  }
  return out.filter((c) => filters.length === 0 || filters.some((x) => c.name.includes(x)));
}

/** The real-time listener's port, once it is up (it starts after the HTTP API). */
async function realtimePort(ctx: { baseUrl: string; apiKey: string }): Promise<number> {
  for (let i = 0; i < 120; i++) {
    const res = await fetch(`${ctx.baseUrl}/api/v1/stt/realtime/info`, { headers: { 'x-api-key': ctx.apiKey } });
    if (!res.ok) throw new Error(`GET /stt/realtime/info answered ${res.status}: ${await res.text()}`);
    const { port } = (await res.json()) as { port: number | null };
    if (port) return port;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the real-time listener did not start within a minute');
}

const TICK_MS = 1000 / Number(process.env.CLK_TCK ?? 100);

/** CPU time the process has used so far (ms, all threads). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function timed(fn: () => Promise<void>, pid: number, cpu: number[]): Promise<number> {
  const c0 = cpuMs(pid);
  const start = performance.now();
  await fn();
  const ms = performance.now() - start;
  cpu.push(cpuMs(pid) - c0);
  return ms;
}

const cases = await loadCases();
if (cases.length === 0) throw new Error('no compat case matched');
const wyomingPort = await freePort();
const server = await startBenchServer({}, process.cwd(), (apiKey) => ({ WYOMING_PORT: String(wyomingPort), WYOMING_API_KEY: apiKey }));
// The Wyoming case connects to the server's own WYOMING_PORT (set here only now: the CLI that
// created the account above must not see it without its key).
process.env.WYOMING_PORT = String(wyomingPort);
try {
  const port = await realtimePort({ baseUrl: server.url, apiKey: server.apiKey });
  const ctx: CompatContext = {
    baseUrl: server.url,
    apiKey: server.apiKey,
    realtimeUrl: `wss://127.0.0.1:${port}/api/v1/stt/realtime/stream`,
    ca: readFileSync(path.join(server.dataDir, 'tls', 'realtime-cert.pem'), 'utf8'),
  };
  const loadBefore = loadavg();
  const rows: Array<Record<string, string>> = [];
  for (const c of cases) {
    await c.native(ctx);
    await c.dialect(ctx);
    const native: number[] = [];
    const dialect: number[] = [];
    const nativeCpu: number[] = [];
    const dialectCpu: number[] = [];
    const pid = server.proc.pid!;
    for (let i = 0; i < RUNS; i++) {
      if (i % 2) {
        native.push(await timed(() => c.native(ctx), pid, nativeCpu));
        dialect.push(await timed(() => c.dialect(ctx), pid, dialectCpu));
      } else {
        dialect.push(await timed(() => c.dialect(ctx), pid, dialectCpu));
        native.push(await timed(() => c.native(ctx), pid, nativeCpu));
      }
    }
    const n = median(native);
    const d = median(dialect);
    const ratio = d / n;
    // CPU: the mean (the clock ticks are 10 ms: one request's figure is coarse, their sum is not).
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const nc = mean(nativeCpu);
    const dc = mean(dialectCpu);
    rows.push({
      case: c.name,
      'native ms': n.toFixed(1),
      'dialect ms': d.toFixed(1),
      ratio: ratio.toFixed(3),
      [`<= ${GOAL}`]: ratio <= GOAL ? 'yes' : 'NO',
      'server CPU ms native / dialect': `${nc.toFixed(1)} / ${dc.toFixed(1)}`,
      'CPU ratio': nc > 0 ? (dc / nc).toFixed(3) : '-',
    });
    console.error(`${c.name}: native ${n.toFixed(1)} ms, dialect ${d.toFixed(1)} ms`);
  }
  const loadAfter = loadavg();
  console.log(
    `${new Date().toISOString()}  RUNS=${RUNS}, medians; load average (1, 5, 15 min) before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')}`,
  );
  console.log(table(rows));
} finally {
  await server.stop();
}
