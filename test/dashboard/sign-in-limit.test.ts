// The sign-in limits on both limiters: two RedisLimiters on one Redis play two nodes, which must
// count one email's attempts together.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryLimiter } from '../../src/limits/memory-limiter.js';
import { RedisLimiter } from '../../src/limits/redis-limiter.js';
import { ApiError } from '../../src/errors.js';
import {
  SIGN_IN_LIMIT_PER_ADDRESS,
  SIGN_IN_LIMIT_PER_EMAIL,
  SIGN_IN_WINDOW_SECONDS,
  SignInLimiter,
} from '../../src/dashboard/sign-in-limit.js';
import { REDIS_URL } from '../helpers/env.js';

const prefix = `parla-test-${randomUUID()}:`;
after(async () => {
  const redis = new Redis(REDIS_URL);
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 })) keys.push(...(batch as string[]));
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

async function refused(p: Promise<void>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
  assert.fail('expected a 429');
}

test('memory: per email and per address, 429 RATE_LIMIT_EXCEEDED with Retry-After up to the window', async () => {
  const limits = new SignInLimiter(new MemoryLimiter());
  for (let i = 0; i < SIGN_IN_LIMIT_PER_EMAIL; i++) await limits.attempt('a@example.com', `10.0.0.${i}`);
  const err = await refused(limits.attempt('a@example.com', '10.0.1.1'));
  assert.equal(err.code, 'RATE_LIMIT_EXCEEDED');
  assert.equal(err.status, 429);
  assert.ok(err.retryAfter! > 0 && err.retryAfter! <= SIGN_IN_WINDOW_SECONDS);
  // The refused attempt above still counted against 10.0.1.1 (it was an attempt from there).
  await limits.attempt('b@example.com', '10.0.1.1');
  for (let i = 2; i < SIGN_IN_LIMIT_PER_ADDRESS; i++) await limits.attempt(`u${i}@example.com`, '10.0.1.1');
  assert.equal((await refused(limits.attempt('c@example.com', '10.0.1.1'))).code, 'RATE_LIMIT_EXCEEDED');
  await limits.attempt('c@example.com', '10.0.1.2');
});

test('Redis: two nodes count one email together', async () => {
  const one = await RedisLimiter.connect(REDIS_URL, undefined, prefix);
  const two = await RedisLimiter.connect(REDIS_URL, undefined, prefix);
  const nodes = [new SignInLimiter(one), new SignInLimiter(two)];
  for (let i = 0; i < SIGN_IN_LIMIT_PER_EMAIL; i++) await nodes[i % 2]!.attempt('shared@example.com', `10.1.0.${i}`);
  for (const node of nodes) assert.equal((await refused(node.attempt('shared@example.com', '10.1.1.1'))).code, 'RATE_LIMIT_EXCEEDED');
  // Limiter keys hold digests, not emails or addresses.
  const redis = new Redis(REDIS_URL);
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 })) keys.push(...(batch as string[]));
  await redis.quit();
  assert.ok(keys.length > 0);
  assert.ok(
    keys.every((k) => !k.includes('shared@example.com') && !k.includes('10.1.')),
    keys.join(' '),
  );
  await one.close();
  await two.close();
});
