// The slot lease (src/limits/slot-lease.ts) on the memory limiter: it holds one of the account's
// slots until released, releases exactly once, and its methods work unbound (edges pass
// `lease.renew` to setInterval).

import test from 'node:test';
import assert from 'node:assert/strict';
import { MemoryLimiter } from '../../src/limits/memory-limiter.js';
import { acquireLease } from '../../src/limits/slot-lease.js';

test('a lease holds its slot until released, once; renew and release work unbound', async () => {
  const limiter = new MemoryLimiter();
  const first = await acquireLease(limiter, 'acct', 1);
  assert.ok(first.lease, 'the first slot is granted');
  const { renew, release } = first.lease;
  renew();
  const timer = setInterval(renew, 5);
  await new Promise((r) => setTimeout(r, 30));
  clearInterval(timer);
  const second = await acquireLease(limiter, 'acct', 1);
  assert.equal(second.lease, null, 'the plan allows one: the second is refused while the first is held');
  assert.ok(!second.lease && second.retryAfter > 0);
  await release();
  await release();
  const third = await acquireLease(limiter, 'acct', 1);
  assert.ok(third.lease, 'free again after the release');
  const fourth = await acquireLease(limiter, 'acct', 1);
  assert.equal(fourth.lease, null, 'a second release did not free a slot it did not hold');
  await third.lease.release();
});

test('keepAlive renews until released, and stops with the release', async () => {
  const limiter = new MemoryLimiter();
  let renewals = 0;
  const renewSlot = limiter.renewSlot.bind(limiter);
  limiter.renewSlot = async (...args) => {
    renewals++;
    return renewSlot(...args);
  };
  const { lease } = await acquireLease(limiter, 'acct', 1);
  assert.ok(lease);
  lease.keepAlive(5);
  await new Promise((r) => setTimeout(r, 40));
  await lease.release();
  const seen = renewals;
  assert.ok(seen >= 2, `renewed ${seen} times`);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(renewals, seen, 'no renewal after the release');
});
