// The order scripts/run-tests.mjs runs test files in (scripts/lib/test-schedule.mjs): at most `jobs`
// at once besides the long waiters, a measuring file never beside another measuring file nor beside
// a busy one, the quiet files beside it within their CPU budget, every file exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { repoPath } from '../helpers/root.js';

// A plain ES module script without type declarations, imported by its place in the repository so
// that the compiled copy of this file (dist/test/) finds it too.
const { classify, LONG_WAITER_SHARE, QUIET_RATE, schedule } = await import(
  pathToFileURL(repoPath('scripts', 'lib', 'test-schedule.mjs')).href
);

interface File {
  file: string;
  rel: string;
  measuring: boolean;
  quiet: boolean;
  longWaiter: boolean;
}

const file = (rel: string, kind: 'normal' | 'measuring' | 'quiet' | 'long waiter' = 'normal'): File => ({
  file: rel,
  rel,
  measuring: kind === 'measuring',
  quiet: kind === 'quiet' || kind === 'long waiter',
  longWaiter: kind === 'long waiter',
});
// `c` is busy though its figure is low: the rule goes by kind, not only by the figures.
const RATES: Record<string, number> = { q1: 0.3, q2: 0.3, q3: 0.1, q4: 0.1, c: 0, w1: 0.1, w2: 0.2 };
const quietRate = (rel: string) => RATES[rel] ?? 1;

/** Runs the schedule with files that end in a random order; returns who ran beside whom at each start. */
async function trace(files: File[], jobs: number, seed: number) {
  let s = seed;
  const random = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const running = new Set<string>();
  const starts: Array<{ rel: string; beside: string[] }> = [];
  const results: string[] = await schedule(files, { jobs, quietRate, quietBeside: 0.5 }, async (rel: string) => {
    starts.push({ rel, beside: [...running] });
    running.add(rel);
    for (let i = Math.floor(random() * 5); i >= 0; i--) await new Promise((r) => setImmediate(r));
    running.delete(rel);
    return rel;
  });
  return { starts, results };
}

const kind = (files: File[], rel: string) => files.find((f) => f.rel === rel)!;

test('every file runs once, never more than jobs at a time besides the long waiters, a measuring file only beside quiet files within their budget', async () => {
  const files = [
    file('w1', 'long waiter'),
    file('w2', 'long waiter'),
    file('a'),
    file('b'),
    file('c'),
    file('d'),
    file('m1', 'measuring'),
    file('m2', 'measuring'),
    file('q1', 'quiet'),
    file('q2', 'quiet'),
    file('q3', 'quiet'),
    file('q4', 'quiet'),
  ];
  for (let seed = 1; seed <= 50; seed++) {
    for (const jobs of [1, 2, 3, 4]) {
      const { starts, results } = await trace(files, jobs, seed);
      assert.deepEqual([...results].sort(), files.map((f) => f.rel).sort());
      for (const { rel, beside } of starts) {
        const inSlots = beside.filter((r) => !kind(files, r).longWaiter);
        if (!kind(files, rel).longWaiter)
          assert.ok(inSlots.length < jobs, `${rel} started beside ${inSlots.length} files in slots with ${jobs} jobs`);
        const together = [rel, ...beside].map((r) => kind(files, r));
        const measuring = together.filter((f) => f.measuring);
        if (measuring.length === 0) continue;
        assert.equal(measuring.length, 1, `${together.map((f) => f.rel)} ran together`);
        const others = together.filter((f) => !f.measuring);
        assert.ok(
          others.every((f) => f.quiet),
          `${together.map((f) => f.rel)} ran together`,
        );
        assert.ok(others.reduce((sum, f) => sum + quietRate(f.rel), 0) <= 0.5, `${together.map((f) => f.rel)} ran together`);
      }
    }
  }
});

test('the files start in the queue order, the quiet ones kept for the measuring files', async () => {
  const files = [file('a'), file('b'), file('m1', 'measuring'), file('q1', 'quiet'), file('q3', 'quiet')];
  const { starts } = await trace(files, 2, 7);
  assert.deepEqual(
    starts.slice(0, 2).map((x) => x.rel),
    ['a', 'b'],
  );
  // m1 starts alone once a and b have ended, and before any quiet file.
  const m1 = starts.findIndex((x) => x.rel === 'm1');
  assert.deepEqual(starts[m1]!.beside, []);
  assert.ok(starts.slice(0, m1).every((x) => !x.rel.startsWith('q')));
});

test('without measuring files the quiet ones run like any other', async () => {
  const files = [file('q1', 'quiet'), file('a'), file('q2', 'quiet')];
  const { starts } = await trace(files, 3, 3);
  assert.deepEqual(
    starts.map((x) => x.beside.length),
    [0, 1, 2],
  );
});

test('the long waiters start first, beside the first files and in no slot, not kept for the measuring files', async () => {
  const files = [file('w1', 'long waiter'), file('a'), file('b'), file('m1', 'measuring'), file('q1', 'quiet')];
  const { starts } = await trace(files, 2, 5);
  assert.deepEqual(
    starts.slice(0, 3).map((x) => [x.rel, x.beside.length]),
    [
      ['w1', 0],
      ['a', 1],
      ['b', 2],
    ],
  );
  // q1 is still kept for m1, and m1 runs beside w1 if w1 has not ended (within the quiet budget).
  assert.ok(starts.findIndex((x) => x.rel === 'm1') < starts.findIndex((x) => x.rel === 'q1'));
});

test('classify: quiet by the CPU share of the idle figures, long waiters by the measuring files together', () => {
  const m = 'test/hostile/hostile-http.test.ts';
  const figures: Record<string, [number, number]> = {
    [m]: [100, 40],
    'test/x/long-wait.test.ts': [100 * LONG_WAITER_SHARE + 1, 1],
    'test/x/short-wait.test.ts': [100 * LONG_WAITER_SHARE - 1, 1],
    'test/x/busy.test.ts': [300, 300 * QUIET_RATE],
  };
  const kinds = classify([...Object.keys(figures), 'test/x/unknown.test.ts'], (rel: string) => figures[rel]);
  assert.deepEqual(
    kinds.map((k: File) => [k.rel, k.measuring, k.quiet, k.longWaiter]),
    [
      [m, true, false, false],
      ['test/x/long-wait.test.ts', false, true, true],
      ['test/x/short-wait.test.ts', false, true, false],
      ['test/x/busy.test.ts', false, false, false],
      ['test/x/unknown.test.ts', false, false, false],
    ],
  );
});
