// The order scripts/run-tests.mjs runs test files in (scripts/lib/test-schedule.mjs): at most `jobs`
// at once besides the long waiters, never two measuring files at once, in the queue's order first
// fit, every file exactly once; and that the files that do not measure run below normal priority
// (decision #103).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { pathToFileURL } from 'node:url';
import { repoPath } from '../helpers/root.js';

// A plain ES module script without type declarations, imported by its place in the repository so
// that the compiled copy of this file (dist/test/) finds it too.
const { BACKGROUND_NICE, classify, LONG_WAITER_SECONDS, QUIET_RATE, schedule } = await import(
  pathToFileURL(repoPath('scripts', 'lib', 'test-schedule.mjs')).href
);

interface File {
  file: string;
  rel: string;
  measuring: boolean;
  quiet: boolean;
  longWaiter: boolean;
}

const file = (rel: string, kind: 'normal' | 'measuring' | 'quiet' | 'long waiter' | 'measuring long waiter' = 'normal'): File => ({
  file: rel,
  rel,
  measuring: kind.startsWith('measuring'),
  quiet: kind === 'quiet' || kind.endsWith('long waiter'),
  longWaiter: kind.endsWith('long waiter'),
});

/** Runs the schedule with files that end in a random order; returns who ran beside whom at each start. */
async function trace(files: File[], jobs: number, seed: number) {
  let s = seed;
  const random = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const running = new Set<string>();
  const starts: Array<{ rel: string; beside: string[] }> = [];
  const results: string[] = await schedule(files, { jobs }, async (rel: string) => {
    starts.push({ rel, beside: [...running] });
    running.add(rel);
    for (let i = Math.floor(random() * 5); i >= 0; i--) await new Promise((r) => setImmediate(r));
    running.delete(rel);
    return rel;
  });
  return { starts, results };
}

const kind = (files: File[], rel: string) => files.find((f) => f.rel === rel)!;

test('every file runs once, never more than jobs at a time besides the long waiters (and never more than jobs long waiters), never two measuring files at once', async () => {
  const files = [
    file('w1', 'long waiter'),
    file('mw', 'measuring long waiter'),
    file('a'),
    file('m1', 'measuring'),
    file('b'),
    file('w2', 'long waiter'),
    file('c'),
    file('m2', 'measuring'),
    file('d'),
    file('q1', 'quiet'),
  ];
  let besideBusy = 0;
  for (let seed = 1; seed <= 50; seed++) {
    for (const jobs of [1, 2, 3, 4]) {
      const { starts, results } = await trace(files, jobs, seed);
      assert.deepEqual([...results].sort(), files.map((f) => f.rel).sort());
      for (const { rel, beside } of starts) {
        const inSlots = beside.filter((r) => !kind(files, r).longWaiter);
        if (!kind(files, rel).longWaiter)
          assert.ok(inSlots.length < jobs, `${rel} started beside ${inSlots.length} files in slots with ${jobs} jobs`);
        else
          assert.ok(
            beside.length - inSlots.length < jobs,
            `${rel} started beside ${beside.length - inSlots.length} long waiters with ${jobs} jobs`,
          );
        const together = [rel, ...beside].map((r) => kind(files, r));
        assert.ok(together.filter((f) => f.measuring).length <= 1, `${together.map((f) => f.rel)} ran together`);
        if (together.some((f) => f.measuring) && together.some((f) => !f.measuring && !f.quiet)) besideBusy++;
      }
    }
  }
  // The priority keeps the busy files off a measuring file's core: it need not wait for them to end.
  assert.ok(besideBusy > 0, 'a measuring file ran beside a busy one');
});

test('the files start in the queue order, first fit: a measuring file waits only for the one before it', async () => {
  const files = [file('m1', 'measuring'), file('m2', 'measuring'), file('a'), file('b')];
  const { starts } = await trace(files, 3, 7);
  assert.deepEqual(
    starts.slice(0, 3).map((x) => [x.rel, x.beside]),
    [
      ['m1', []],
      ['a', ['m1']],
      ['b', ['m1', 'a']],
    ],
  );
  const m2 = starts.find((x) => x.rel === 'm2')!;
  assert.ok(!m2.beside.includes('m1'), 'm2 after m1');
});

test('the long waiters start in the queue order and take no slot; a measuring long waiter still keeps the other measuring files out', async () => {
  const files = [file('mw', 'measuring long waiter'), file('w1', 'long waiter'), file('a'), file('m1', 'measuring'), file('b')];
  const { starts } = await trace(files, 2, 5);
  assert.deepEqual(
    starts.slice(0, 3).map((x) => [x.rel, x.beside.length]),
    [
      ['mw', 0],
      ['w1', 1],
      ['a', 2],
    ],
  );
  const m1 = starts.find((x) => x.rel === 'm1')!;
  assert.ok(!m1.beside.includes('mw'), `m1 started beside ${m1.beside}`);
});

test('classify: measuring by the list, quiet by the CPU share of the idle figures, long waiters by their length', () => {
  const m = 'test/hostile/hostile-http.test.ts';
  const f = 'test/fairness/fairness.test.ts';
  const figures: Record<string, [number, number]> = {
    [m]: [100, 40],
    [f]: [150, 30],
    'test/x/long-wait.test.ts': [LONG_WAITER_SECONDS + 1, 1],
    'test/x/short-wait.test.ts': [LONG_WAITER_SECONDS - 1, 1],
    'test/x/busy.test.ts': [300, 300 * QUIET_RATE],
  };
  const kinds = classify([...Object.keys(figures), 'test/x/unknown.test.ts'], (rel: string) => figures[rel]);
  assert.deepEqual(
    kinds.map((k: File) => [k.rel, k.measuring, k.quiet, k.longWaiter]),
    [
      [m, true, false, false],
      [f, true, true, true],
      ['test/x/long-wait.test.ts', false, true, true],
      ['test/x/short-wait.test.ts', false, true, false],
      ['test/x/busy.test.ts', false, false, false],
      ['test/x/unknown.test.ts', false, false, false],
    ],
  );
});

// The runner marks its own runs with PARLA_TEST_SHARED_DIR; this file is not a measuring one.
test('under the runner, a file that does not measure runs at the background priority', {
  skip: !process.env.PARLA_TEST_SHARED_DIR && 'not run by scripts/run-tests.mjs',
}, () => {
  assert.equal(getPriority(), BACKGROUND_NICE);
});
