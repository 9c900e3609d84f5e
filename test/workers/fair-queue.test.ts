// The engine pool's fair queue: flows (requests) take turns; within a flow, first come first served.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Piscina } from 'piscina';
import { FairTaskQueue } from '../../src/workers/fair-queue.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { createWorkerPool } from '../../src/tasks/table.js';

type Task = Parameters<FairTaskQueue['push']>[0];
const task = (name: string, flow?: object, tenant?: string): Task & { name: string } =>
  ({ name, [Piscina.queueOptionsSymbol]: flow ? { flow, tenant } : null }) as never;
const names = (q: FairTaskQueue) => {
  const out: string[] = [];
  for (let t = q.shift(); t; t = q.shift()) out.push((t as unknown as { name: string }).name);
  return out;
};

test('a long flow and a newcomer take turns; each flow keeps its own order', () => {
  const q = new FairTaskQueue();
  const long = {};
  const short = {};
  q.push(task('L1', long));
  q.push(task('L2', long));
  assert.equal((q.shift() as unknown as { name: string }).name, 'L1');
  q.push(task('L3', long));
  q.push(task('S1', short));
  q.push(task('S2', short));
  assert.equal(q.size, 4);
  // The long flow was just served: the short one goes next, then they alternate.
  assert.deepEqual(names(q), ['S1', 'L2', 'S2', 'L3']);
  assert.equal(q.size, 0);
  assert.equal(q.shift(), null);
});

test('a flow that emptied keeps its turn (no jump ahead as a newcomer); tasks without a flow are newcomers', () => {
  const q = new FairTaskQueue();
  const a = {};
  const b = {};
  q.push(task('A1', a));
  q.push(task('B1', b));
  assert.deepEqual(names(q), ['A1', 'B1']);
  q.push(task('A2', a));
  q.push(task('B2', b));
  q.push(task('X'));
  assert.deepEqual(names(q), ['X', 'A2', 'B2']);
});

test('accounts take turns before their requests do: many requests of one account do not get many turns (decision #58)', () => {
  const q = new FairTaskQueue();
  const [a1, a2, a3, b1] = [{}, {}, {}, {}];
  q.push(task('A1a', a1, 'a'));
  q.push(task('A2a', a2, 'a'));
  q.push(task('A3a', a3, 'a'));
  q.push(task('A1b', a1, 'a'));
  q.push(task('B1a', b1, 'b'));
  q.push(task('B1b', b1, 'b'));
  // a and b alternate; within a, its three requests alternate.
  assert.deepEqual(names(q), ['A1a', 'B1a', 'A2a', 'B1b', 'A3a', 'A1b']);
});

test('an account whose queue emptied keeps its turn: it does not jump ahead of one that waited', () => {
  const q = new FairTaskQueue();
  const a = {};
  const b = {};
  q.push(task('A1', a, 'a'));
  q.push(task('B1', b, 'b'));
  assert.deepEqual(names(q), ['A1', 'B1']);
  q.push(task('B2', b, 'b'));
  q.push(task('A2', {}, 'a'));
  // a was served before b: a goes first though b's task came first, then b.
  assert.deepEqual(names(q), ['A2', 'B2']);
  q.push(task('B3', {}, 'b'));
  q.push(task('A3', {}, 'a'));
  assert.deepEqual(names(q), ['A3', 'B3']);
});

test('remove and unshift keep the count and the order', () => {
  const q = new FairTaskQueue();
  const a = {};
  const t1 = task('A1', a);
  const t2 = task('A2', a);
  q.push(t1);
  q.push(t2);
  q.remove(t1);
  assert.equal(q.size, 1);
  q.unshift(t1);
  assert.deepEqual(names(q), ['A1', 'A2']);
});

test('the pool runs tasks with and without flows', async () => {
  const pool = createWorkerPool({ threads: 1, maxQueue: 8 });
  try {
    const results = await Promise.all([
      WorkerPool.inFlow(() => Promise.all([1, 2, 3].map((value) => pool.run('pool.echo', { value })))),
      pool.run('pool.echo', { value: 4 }),
    ]);
    assert.deepEqual(results, [[{ value: 1 }, { value: 2 }, { value: 3 }], { value: 4 }]);
  } finally {
    await pool.close();
  }
});
