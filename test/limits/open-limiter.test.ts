// openLimiter picks the implementation from configuration: Redis when REDIS_URL is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLimiter } from '../../src/limits/open-limiter.js';
import { REDIS_URL, tempDir, testConfig } from '../helpers/env.js';

test('no REDIS_URL: the memory limiter; REDIS_URL: the Redis limiter; an unreachable one fails at startup', async () => {
  const tmp = tempDir();
  try {
    const memory = await openLimiter(testConfig({}, tmp.dir));
    assert.equal(memory.kind, 'memory');
    await memory.close();
    const redis = await openLimiter(testConfig({ REDIS_URL }, tmp.dir));
    assert.equal(redis.kind, 'redis');
    await redis.close();
    await assert.rejects(
      openLimiter(testConfig({ REDIS_URL: 'redis://127.0.0.1:1' }, tmp.dir)),
      /Redis at redis:\/\/127\.0\.0\.1:1\/? is unreachable/,
    );
  } finally {
    tmp.cleanup();
  }
});
