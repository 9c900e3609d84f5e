// Parla nodes as separate processes (`parla serve`), for scale-out and crash tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { promisify } from 'node:util';
import { parlaArgs } from './parla-command.js';

export interface NodeProcess {
  url: string;
  /** The live-transcription WebSocket's port (TLS with a self-signed certificate unless configured). */
  realtimePort: number;
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

// Below Linux's ephemeral range (32768+), where outgoing connections of parallel test files would
// otherwise take a port now and then; a port still taken (another test file's node) is retried.
const PORT_BASE = 20000;
const PORT_SPAN = 12000;
let nextPort = PORT_BASE + Math.floor(Math.random() * (PORT_SPAN - 200));

export async function startNode(env: Record<string, string>): Promise<NodeProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNodeOnce(env);
    } catch (err) {
      if (attempt >= 5 || !/EADDRINUSE/.test(String(err))) throw err;
    }
  }
}

/**
 * Whether process `pid` holds the listening socket of `port` (Linux's /proc; elsewhere assumed).
 * Without this, a port another test file's node already listens on answers our /health while our
 * node is still starting (it fails later with EADDRINUSE), and the test talks to the wrong node.
 */
function listensOn(pid: number, port: number): boolean {
  if (!existsSync('/proc/net/tcp')) return true;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(' ').filter(Boolean);
      // cols[1] local address:port (hex), cols[3] state (0A: listening), cols[9] the socket's inode.
      if (cols.length < 10 || cols[3] !== '0A') continue;
      const local = cols[1]!;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(cols[9]!);
    }
  }
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`).slice('socket:['.length, -1));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

async function startNodeOnce(env: Record<string, string>): Promise<NodeProcess> {
  if (nextPort >= PORT_BASE + PORT_SPAN - 2) nextPort = PORT_BASE;
  const port = nextPort++;
  const realtime = nextPort++;
  const proc = spawn(process.execPath, parlaArgs(['serve']), {
    env: { ...process.env, ...BASE_ENV, ...env, PORT: String(port), REALTIME_PORT: String(realtime) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const url = `http://127.0.0.1:${port}`;
  let healthy = false;
  for (let i = 0; i < 300 && !healthy; i++) {
    if (proc.exitCode !== null) throw new Error(`node exited: ${err}`);
    try {
      // Healthy, and ours (not another test file's node on the same port).
      healthy = (await fetch(`${url}/health`)).ok && listensOn(proc.pid!, port);
    } catch {
      // not listening yet
    }
    if (!healthy) await new Promise((r) => setTimeout(r, 100));
  }
  if (!healthy) {
    proc.kill('SIGKILL');
    throw new Error(`node on port ${port} was not healthy within 30 s: ${err}`);
  }
  return {
    url,
    realtimePort: realtime,
    proc,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode !== null) return;
      proc.kill(signal);
      await once(proc, 'exit');
    },
  };
}

export async function cli(args: string[], env: Record<string, string>): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, parlaArgs([...args, '--json']), {
    env: { ...process.env, ...BASE_ENV, ...env },
  });
  return JSON.parse(stdout);
}
