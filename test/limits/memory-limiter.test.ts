import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryLimiter } from '../../src/limits/memory-limiter.js';
import { admitNow } from '../../src/limits/limiter.js';
import { runLimiterContract } from './limiter-contract.js';

runLimiterContract('MemoryLimiter', async () => {
  const limiter = new MemoryLimiter();
  return { limiter, cleanup: () => limiter.close() };
});

test('the memory limiter decides without I/O: admitNow answers at once, no promise on the hot path', async () => {
  const limiter = new MemoryLimiter();
  assert.ok(limiter.immediate);
  const a = admitNow(limiter, 'acc_fast', [{ windowSeconds: 60, limit: 2 }], 1, 10_000);
  assert.ok(!(a instanceof Promise));
  assert.equal(a.rate.remaining, 1);
  await limiter.close();
});
