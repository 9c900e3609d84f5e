// Parla nodes as separate processes (`parla serve`), for scale-out and crash tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface NodeProcess {
  url: string;
  proc: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export const BASE_ENV = {
  PARLA_SEED_DEMO: 'false',
  LOG_LEVEL: 'warn',
  PARLA_KEY_SECRET: 'scale-test-secret-0123456789',
  PARLA_WORKERS: '1',
  PARLA_STT_DECODERS: '1',
  PARLA_STT_PRELOAD: 'false',
};

let nextPort = 21000 + Math.floor(Math.random() * 20000);

export async function startNode(env: Record<string, string>): Promise<NodeProcess> {
  const port = nextPort++;
  const realtime = nextPort++;
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', 'serve'], {
    env: { ...process.env, ...BASE_ENV, ...env, PORT: String(port), REALTIME_PORT: String(realtime) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (proc.exitCode !== null) throw new Error(`node exited: ${err}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    proc,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode !== null) return;
      proc.kill(signal);
      await once(proc, 'exit');
    },
  };
}

export async function cli(args: string[], env: Record<string, string>): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args, '--json'], { env: { ...process.env, ...BASE_ENV, ...env } });
  return JSON.parse(stdout);
}
