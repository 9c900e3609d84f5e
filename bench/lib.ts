// Shared benchmark helpers: a real Parla server in a child process, medians, and a results table.
// Benchmarks compare Parla against a baseline in the same run (ratios), since these machines are
// shared and noisy.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function timeIt<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

export interface BenchServer {
  url: string;
  apiKey: string;
  /** Its data directory (the SQLite file, the real-time listener's self-signed certificate). */
  dataDir: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** How long a bench server may take to answer /health (decoders warm at start; a loaded machine is slow). */
const START_TIMEOUT_MS = Number(process.env.BENCH_START_TIMEOUT_MS ?? 180_000);

const built = new Set<string>();

/**
 * The compiled CLI, as `npm start` and the `parla` command run it: built (scripts/build.sh) once
 * per benchmark process and checkout, so a benchmark measures the current sources as users run
 * them, not through tsx's on-the-fly transform (which, among other things, wraps every function
 * created per request in a naming helper). `root` is the checkout (another one for A/B benches).
 */
function compiledCli(root: string): string {
  if (!built.has(root)) {
    execFileSync('bash', [path.join(root, 'scripts/build.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
    built.add(root);
  }
  return path.join(root, 'dist/src/cli/run.js');
}

/**
 * Starts `parla serve` (the compiled build, see compiledCli) on a free port with a fresh SQLite data dir, and
 * creates an enterprise account with plenty of credits. Rejects with the reason when the server
 * exits or does not answer /health within START_TIMEOUT_MS: a benchmark must never measure (or
 * wait forever for) a server that is not there.
 */
export async function startBenchServer(
  env: Record<string, string> = {},
  root = process.cwd(),
  serveEnv: (apiKey: string) => Record<string, string> = () => ({}),
): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parla-bench-'));
  const baseEnv = {
    ...process.env,
    PARLA_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PARLA_SEED_DEMO: 'false',
    PORT: env.PORT ?? '0',
    REALTIME_PORT: env.REALTIME_PORT ?? '0',
    ...env,
  };
  const cli = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, [compiledCli(root), ...args], { cwd: root, env: baseEnv, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`parla ${args.join(' ')} exited ${code}`))));
    });
  let created: { key: { api_key: string } };
  try {
    created = JSON.parse(
      await cli(['accounts', 'create', '--name', 'bench', '--plan', 'enterprise', '--credits', '1000000000', '--json']),
    ) as typeof created;
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const port = env.PORT && env.PORT !== '0' ? env.PORT : String(20000 + Math.floor(Math.random() * 12000));
  // BENCH_SERVER_NODE_ARGS profiles the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
  // (not allowed in NODE_OPTIONS).
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  // serveEnv: settings of `serve` alone that need the account's key (WYOMING_API_KEY).
  const proc = spawn(process.execPath, [...nodeArgs, compiledCli(root), 'serve'], {
    cwd: root,
    env: { ...baseEnv, PORT: port, ...serveEnv(created.key.api_key) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Kept as a promise from the start: an exit before anyone waits for it must not be missed.
  const exited = new Promise<string>((resolve) => {
    proc.once('error', (err) => resolve(`could not be started: ${err.message}`));
    proc.once('exit', (code, signal) => resolve(`exited (${signal ?? `code ${code}`})`));
  });
  let gone: string | null = null;
  void exited.then((why) => (gone = why));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  let last = 'no answer';
  for (;;) {
    if (gone !== null) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`bench server on port ${port} ${gone} before it became healthy (its stderr is above)`);
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(
        `bench server on port ${port} not healthy after ${START_TIMEOUT_MS / 1000} s (last: ${last}); set BENCH_START_TIMEOUT_MS to wait longer`,
      );
    }
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
      if (r.ok) break;
      last = `HTTP ${r.status}`;
    } catch (err) {
      last = (err as Error).message; // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    apiKey: created.key.api_key,
    dataDir,
    proc,
    async stop() {
      if (gone === null) proc.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function table(rows: Array<Record<string, string | number>>): string {
  if (rows.length === 0) return '';
  const cols = Object.keys(rows[0]!);
  const fmt = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  return [
    `| ${cols.join(' | ')} |`,
    `|${cols.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${cols.map((c) => fmt(r[c] ?? '')).join(' | ')} |`),
  ].join('\n');
}

/**
 * POST over a connection of its own (no keep-alive reuse), answering status and body. Benchmarks
 * that pause for seconds between uploads (a CLI baseline runs meanwhile) saw a reused idle
 * connection closed under them now and then ("other side closed") on the loaded test machine;
 * a fresh connection costs well under a millisecond against seconds of recognition.
 */
export async function postFresh(url: string, headers: Record<string, string>, body: Uint8Array): Promise<{ status: number; body: string }> {
  const res = await postFreshBytes(url, headers, body);
  return { status: res.status, body: res.bytes.toString('utf8') };
}

/** postFresh, answering the body's bytes (audio). */
export function postFreshBytes(url: string, headers: Record<string, string>, body: Uint8Array): Promise<{ status: number; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(body.byteLength), connection: 'close' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const keepAlive = new http.Agent({ keepAlive: true });

/**
 * POST JSON and read the answer to its end without keeping it: the response's byte count. Cheaper
 * for the load generator than fetch, which on this 2-core machine took ~23 ms of CPU to read a
 * 2.3 MB WAV, CPU the server under test then lacked.
 */
export async function postDrain(url: string, headers: Record<string, string>, json: object): Promise<number> {
  return (await postTimed(url, headers, json)).bytes;
}

/** postDrain, also timing the first byte of the body and the whole answer (ms from the call). */
export function postTimed(
  url: string,
  headers: Record<string, string>,
  json: object,
): Promise<{ bytes: number; firstByteMs: number; totalMs: number }> {
  const start = performance.now();
  const body = Buffer.from(JSON.stringify(json));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.byteLength) },
      },
      (res) => {
        let bytes = 0;
        let firstByteMs = 0;
        let error = '';
        res.on('data', (c: Buffer) => {
          if (bytes === 0) firstByteMs = performance.now() - start;
          bytes += c.length;
          if (res.statusCode !== 200 && error.length < 2000) error += c.toString('utf8');
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ bytes, firstByteMs, totalMs: performance.now() - start })
            : reject(new Error(`${res.statusCode}: ${error}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
