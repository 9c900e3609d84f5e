// The small process that starts programs for the service (see spawner.ts for why): it receives
// { id, file, args } over IPC, runs the program, and answers { id, code, signal, stderr } or
// { id, error }; { kill: id } ends a run early. With `pipe: true` the program's stdin and stdout
// are one Unix socket the service connects to: this process listens on a socket of its own
// (in a private directory), answers { id, socket: path }, and hands the accepted connection to the
// program as its stdin and stdout (the descriptor itself, so no byte passes through here), then
// closes its copy. It imports nothing but Node's own modules, so it stays a few tens of MB, and
// forking it costs a few milliseconds. It exits with its parent.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

interface RunMessage {
  id: number;
  file: string;
  args: string[];
  pipe?: boolean;
}
type InMessage = RunMessage | { kill: number };

const running = new Map<number, ChildProcess>();
/** Pipe runs waiting for the service to connect. */
const listening = new Map<number, Server>();
const send = (m: unknown) => process.send?.(m);
let socketDir: string | null = null;

function start(m: RunMessage, stdio: ['ignore' | Socket, 'ignore' | Socket, 'pipe']): void {
  let stderr = '';
  let child: ChildProcess;
  try {
    child = spawn(m.file, m.args, { stdio });
  } catch (err) {
    send({ id: m.id, error: (err as Error).message });
    return;
  }
  running.set(m.id, child);
  child.stderr?.on('data', (d: Buffer) => {
    // What an error message needs, not an unbounded buffer.
    if (stderr.length < 4000) stderr += d.toString();
  });
  child.on('error', (err) => {
    running.delete(m.id);
    send({ id: m.id, error: err.message });
  });
  child.on('close', (code, signal) => {
    if (!running.delete(m.id)) return;
    send({ id: m.id, code, signal, stderr });
  });
}

function startPiped(m: RunMessage): void {
  socketDir ??= mkdtempSync(path.join(tmpdir(), 'parla-spawner-'));
  const file = path.join(socketDir, `${m.id}.sock`);
  // Paused: not a byte of the connection is read here; it is all the program's.
  const server = createServer({ pauseOnConnect: true }, (conn) => {
    server.close();
    listening.delete(m.id);
    start(m, [conn, conn, 'pipe']);
    // The program holds its own copy of the descriptor; ours would keep the socket open after
    // the program exits, and the service would never see the end of the output.
    conn.destroy();
  });
  server.on('error', (err) => {
    listening.delete(m.id);
    send({ id: m.id, error: err.message });
  });
  listening.set(m.id, server);
  server.listen(file, () => send({ id: m.id, socket: file }));
}

process.on('message', (m: InMessage) => {
  if ('kill' in m) {
    running.get(m.kill)?.kill('SIGKILL');
    const server = listening.get(m.kill);
    if (server) {
      listening.delete(m.kill);
      server.close();
      send({ id: m.kill, error: 'killed before it started' });
    }
    return;
  }
  if (m.pipe) startPiped(m);
  else start(m, ['ignore', 'ignore', 'pipe']);
});

// The parent is gone (or closed the channel): nothing left to run for.
process.on('disconnect', () => {
  for (const child of running.values()) child.kill('SIGKILL');
  if (socketDir) rmSync(socketDir, { recursive: true, force: true });
  process.exit(0);
});
