import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { RedisLimiter } from '../../src/limits/redis-limiter.js';
import { REDIS_URL } from '../helpers/env.js';
import { runLimiterContract } from './limiter-contract.js';

runLimiterContract('RedisLimiter', async () => {
  const prefix = `parla-test-${randomUUID()}:`;
  const limiter = await RedisLimiter.connect(REDIS_URL, undefined, prefix);
  const peer = await RedisLimiter.connect(REDIS_URL, undefined, prefix);
  return { limiter, peer, cleanup: async () => { await limiter.close(); await peer.close(); } };
});

test('Redis gone: requests are let through instead of failing or hanging', async () => {
  const limiter = await RedisLimiter.connect(REDIS_URL, undefined, `parla-test-${randomUUID()}:`);
  await limiter.close();
  const started = Date.now();
  const d = await limiter.hit('acc_x', [{ windowSeconds: 60, limit: 1 }]);
  assert.equal(d.allowed, true);
  assert.equal((await limiter.acquireSlot('acc_x', 1, 1000)).ok, true);
  assert.ok(Date.now() - started < 3000);
});
