// Loaded (--import) into each test file's process by scripts/run-tests.mjs: at exit, writes the CPU
// seconds the process used (all its threads) and those of the programs it ran and waited for
// (ffmpeg, flite, python, child nodes: Linux's cutime + cstime), for the runner's per-file table.
import { readFileSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const target = process.env.PARLA_TEST_USAGE_FILE;
// Not inherited: a node program the test starts must not overwrite this file's figures.
delete process.env.PARLA_TEST_USAGE_FILE;

function childrenCpuSeconds() {
  try {
    // Fields after the command name (which may hold spaces): cutime and cstime are fields 16 and 17.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // clock ticks; USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

if (target && isMainThread) {
  process.on('exit', () => {
    const u = process.cpuUsage();
    try {
      writeFileSync(target, JSON.stringify({ cpu: (u.user + u.system) / 1e6, children: childrenCpuSeconds() }));
    } catch {
      // the runner shows '?' for this file
    }
  });
}
