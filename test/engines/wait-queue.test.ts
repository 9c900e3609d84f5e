// WaitQueue, the line the decoder pools and Flite's process cap share: first come first served
// within an account, accounts in turn,
// and an aborted caller (before or while waiting) leaves the line and is never handed anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WaitQueue } from '../../src/engines/wait-queue.js';
import { asTenant } from '../../src/domain/tenant.js';

test('values go to the callers in the order they came; with nobody waiting, give() keeps nothing', async () => {
  const q = new WaitQueue<string>();
  assert.equal(q.give('unwanted'), false);
  const a = q.wait();
  const b = q.wait();
  assert.equal(q.length, 2);
  assert.equal(q.give('first'), true);
  assert.equal(q.give('second'), true);
  assert.deepEqual(await Promise.all([a, b]), ['first', 'second']);
  assert.equal(q.length, 0);
});

test('an already aborted signal rejects at once with its reason and never joins the line', async () => {
  const q = new WaitQueue<number>();
  const ac = new AbortController();
  ac.abort(new Error('gone before'));
  await assert.rejects(q.wait(ac.signal), /gone before/);
  assert.equal(q.length, 0);
  assert.equal(q.give(1), false, 'nothing to hand it to');
});

test('an abort while waiting leaves the line: the next caller gets the value', async () => {
  const q = new WaitQueue<number>();
  const ac = new AbortController();
  const left = q.wait(ac.signal);
  const stays = q.wait();
  ac.abort(new Error('gone during'));
  await assert.rejects(left, /gone during/);
  assert.equal(q.length, 1);
  assert.equal(q.give(7), true);
  assert.equal(await stays, 7);
});

test('a value handed over is kept even if the signal aborts afterwards', async () => {
  const q = new WaitQueue<number>();
  const ac = new AbortController();
  const p = q.wait(ac.signal);
  q.give(3);
  ac.abort(new Error('too late'));
  assert.equal(await p, 3, 'the caller owns it and must give it back');
});

test('fail() rejects the longest-waiting caller only', async () => {
  const q = new WaitQueue<number>();
  const a = q.wait();
  const b = q.wait();
  assert.equal(q.fail(new Error('could not make one')), true);
  await assert.rejects(a, /could not make one/);
  q.give(5);
  assert.equal(await b, 5);
  assert.equal(q.fail(new Error('nobody')), false);
});

test('accounts take turns: one account with many callers waiting does not keep another behind all of them (decision #58)', async () => {
  const q = new WaitQueue<number>();
  const got: string[] = [];
  const wait = (account: string, name: string) => asTenant(account, () => q.wait()).then(() => got.push(name));
  const all = [wait('a', 'a1'), wait('a', 'a2'), wait('a', 'a3'), wait('b', 'b1'), wait('b', 'b2')];
  for (let i = 0; i < 5; i++) q.give(i);
  await Promise.all(all);
  assert.deepEqual(got, ['a1', 'b1', 'a2', 'b2', 'a3']);
  // A newcomer (c) first, then b, whose last turn is older than a's, though a came first.
  const later = [wait('a', 'a4'), wait('c', 'c1'), wait('b', 'b3')];
  for (let i = 0; i < 3; i++) q.give(i);
  await Promise.all(later);
  assert.deepEqual(got.slice(5), ['c1', 'b3', 'a4']);
});
