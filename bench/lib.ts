// Shared benchmark helpers: a real Parla server in a child process, medians, and a results table.
// Benchmarks compare Parla against a baseline in the same run (ratios), since these machines are
// shared and noisy.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';

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
  proc: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `parla serve` (TypeScript through tsx) on a free port with a fresh SQLite data dir, and
 * creates an enterprise account with plenty of credits.
 */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parla-bench-'));
  const baseEnv = { ...process.env, PARLA_DATA_DIR: dataDir, LOG_LEVEL: 'warn', PARLA_SEED_DEMO: 'false', PORT: env.PORT ?? '0', REALTIME_PORT: env.REALTIME_PORT ?? '0', ...env };
  const cli = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], { env: baseEnv, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`parla ${args.join(' ')} exited ${code}`))));
    });
  const created = JSON.parse(await cli(['accounts', 'create', '--name', 'bench', '--plan', 'enterprise', '--credits', '1000000000', '--json']));
  const port = env.PORT && env.PORT !== '0' ? env.PORT : String(20000 + Math.floor(Math.random() * 20000));
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', 'serve'], { env: { ...baseEnv, PORT: port }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(`${url}/health`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    apiKey: created.key.api_key,
    proc,
    async stop() {
      proc.kill('SIGTERM');
      await once(proc, 'close');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function table(rows: Array<Record<string, string | number>>): string {
  if (rows.length === 0) return '';
  const cols = Object.keys(rows[0]!);
  const fmt = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  return [`| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${cols.map((c) => fmt(r[c] ?? '')).join(' | ')} |`)].join('\n');
}
