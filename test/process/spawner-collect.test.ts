// ProcessSpawner.collect (src/process/spawner.ts), the way the pronouncer and the decode fallback
// run a program: all of stdout and the exit, a bound on output, an abort, a missing program; and
// that the programs are children of the helper, not of this process.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { ProcessSpawner } from '../../src/process/spawner.js';

const spawner = new ProcessSpawner();
after(() => spawner.close());

test('collect: all of stdout (larger than a socket buffer), the exit code and stderr', async () => {
  const run = await spawner.collect('sh', ['-c', 'head -c 3000000 /dev/zero; echo oops >&2; exit 3']);
  assert.equal(run.stdout.length, 3_000_000);
  assert.equal(run.code, 3);
  assert.match(run.stderr, /oops/);
});

test('collect: the program reads an empty stdin (its input ends at once)', async () => {
  const run = await spawner.collect('sh', ['-c', 'wc -c']);
  assert.equal(run.stdout.toString().trim(), '0');
  assert.equal(run.code, 0);
});

test('collect: output past maxBytes kills the program', async () => {
  const run = await spawner.collect('sh', ['-c', 'cat /dev/zero'], { maxBytes: 1 << 20 });
  assert.equal(run.code, null);
  assert.equal(run.signal, 'SIGKILL');
  assert.ok(run.stdout.length <= 1 << 20);
});

test('collect: an abort kills the program; a missing program is an error', async () => {
  const t0 = Date.now();
  const run = await spawner.collect('sleep', ['30'], { signal: AbortSignal.timeout(200) });
  assert.equal(run.signal, 'SIGKILL');
  assert.ok(Date.now() - t0 < 10_000);
  await assert.rejects(spawner.collect('/nonexistent/parla-no-such-program', []));
});

test('the program is a child of the helper, not of this process', async () => {
  const running = spawner.collect('sleep', ['1']);
  await new Promise((r) => setTimeout(r, 300));
  const mine = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  assert.doesNotMatch(mine, /\bsleep\b/);
  await running;
});
