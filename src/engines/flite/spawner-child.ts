// The small process that starts Flite for the service (see spawner.ts for why): it receives
// { id, file, args } over IPC, runs the program, and answers { id, code, signal, stderr } or
// { id, error }; { kill: id } ends a run early. It imports nothing but Node's own modules, so it
// stays a few tens of MB, and forking it costs a few milliseconds. It exits with its parent.

import { spawn, type ChildProcess } from 'node:child_process';

interface RunMessage {
  id: number;
  file: string;
  args: string[];
}
type InMessage = RunMessage | { kill: number };

const running = new Map<number, ChildProcess>();
const send = (m: unknown) => process.send?.(m);

process.on('message', (m: InMessage) => {
  if ('kill' in m) {
    running.get(m.kill)?.kill('SIGKILL');
    return;
  }
  let stderr = '';
  let child: ChildProcess;
  try {
    child = spawn(m.file, m.args, { stdio: ['ignore', 'ignore', 'pipe'] });
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
});

// The parent is gone (or closed the channel): nothing left to run for.
process.on('disconnect', () => {
  for (const child of running.values()) child.kill('SIGKILL');
  process.exit(0);
});
