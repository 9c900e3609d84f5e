// The limiter contract on Redis (two limiters on one Redis play two nodes), and what happens when
// Redis goes away or stops answering: answers keep coming, from each node's own limits.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { COMMAND_TIMEOUT_MS, RedisLimiter } from '../../src/limits/redis-limiter.js';
import { REDIS_URL } from '../helpers/env.js';
import { runLimiterContract } from './limiter-contract.js';
import { RedisRelay } from './redis-relay.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every key this file's limiters wrote, removed at the end. */
const prefixes: string[] = [];
function testPrefix(): string {
  const p = `parla-test-${randomUUID()}:`;
  prefixes.push(p);
  return p;
}
after(async () => {
  const redis = new Redis(REDIS_URL);
  for (const p of prefixes) {
    const keys: string[] = [];
    for await (const batch of redis.scanStream({ match: `${p}*`, count: 500 })) keys.push(...(batch as string[]));
    if (keys.length) await redis.del(...keys);
  }
  await redis.quit();
});

runLimiterContract(
  'RedisLimiter',
  async () => {
    const prefix = testPrefix();
    const limiter = await RedisLimiter.connect(REDIS_URL, undefined, prefix);
    const peer = await RedisLimiter.connect(REDIS_URL, undefined, prefix);
    return {
      limiter,
      peer,
      cleanup: async () => {
        await limiter.close();
        await peer.close();
      },
    };
  },
  { multiNode: true },
);

test('admissions that arrive while a script call is in flight go together in the next call', async () => {
  const relay = new RedisRelay();
  const url = await relay.start();
  const limiter = await RedisLimiter.connect(url, undefined, testPrefix());
  try {
    const acct = `acc_${randomUUID()}`;
    const w = [{ windowSeconds: 60, limit: 100 }];
    await limiter.admit(acct, w, 10, 10_000); // the script is loaded and cached from here on
    relay.scriptCalls = 0;
    relay.replyDelayMs = 100;
    const first = limiter.admit(acct, w, 10, 10_000);
    // Three more, each in a turn of its own, while the first call waits for its reply.
    const more: Array<ReturnType<RedisLimiter['admit']>> = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 10));
      more.push(limiter.admit(acct, w, 10, 10_000));
    }
    const all = await Promise.all([first, ...more]);
    assert.equal(relay.scriptCalls, 2, 'one call for the first admission, one for the three that waited');
    assert.deepEqual(
      all.map((a) => a.rate.windows[0]!.remaining),
      [98, 97, 96, 95],
    );
    assert.deepEqual(
      all.map((a) => a.slot?.ok && a.slot.inUse),
      [2, 3, 4, 5],
    );
  } finally {
    await limiter.close();
    await relay.stop();
  }
});

describe('RedisLimiter without Redis', () => {
  test('an unreachable Redis at startup is a clear error', async () => {
    const relay = new RedisRelay();
    await relay.start();
    await relay.cut();
    await assert.rejects(RedisLimiter.connect(`redis://:secret@127.0.0.1:${relay.port}`), (err: Error) => {
      assert.match(err.message, /Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/? is unreachable/);
      return true;
    });
  });

  test('Redis down: each node enforces its own limits, answers at once, and shares again when Redis is back', async () => {
    const relay = new RedisRelay();
    const url = await relay.start();
    const prefix = testPrefix();
    const warnings: string[] = [];
    const infos: string[] = [];
    const log = { warn: (_o: unknown, m: string) => warnings.push(m), info: (m: string) => infos.push(m) } as never;
    const limiter = await RedisLimiter.connect(url, log, prefix);
    const direct = await RedisLimiter.connect(REDIS_URL, undefined, prefix);
    try {
      const acct = `acc_${randomUUID()}`;
      const w = [{ windowSeconds: 60, limit: 2 }];
      assert.equal((await limiter.hit(acct, w)).allowed, true);
      await relay.cut();
      const started = Date.now();
      // This node's own counters start afresh: 2 more pass, the third is refused.
      assert.equal((await limiter.hit(acct, w)).allowed, true);
      assert.equal((await limiter.hit(acct, w)).allowed, true);
      const refused = await limiter.hit(acct, w);
      assert.equal(refused.allowed, false);
      assert.ok(refused.retryAfter >= 1);
      const a = await limiter.acquireSlot(acct, 1, 10_000);
      assert.ok(a.ok);
      assert.equal((await limiter.acquireSlot(acct, 1, 10_000)).ok, false, 'the node still enforces the slot limit');
      assert.equal(await limiter.slotsInUse(acct), 1);
      await limiter.renewSlot(acct, a.slotId, 10_000);
      await limiter.releaseSlot(acct, a.slotId);
      assert.equal(await limiter.slotsInUse(acct), 0);
      assert.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
      assert.equal(warnings.length, 1, 'one warning per outage');

      await relay.start();
      let back = false;
      for (let i = 0; i < 50 && !back; i++) {
        await sleep(100);
        const s = await limiter.acquireSlot(acct, 5, 10_000);
        back = s.ok && (await direct.slotsInUse(acct)) === 1;
        if (s.ok) await limiter.releaseSlot(acct, s.slotId);
      }
      assert.ok(back, 'slots are shared through Redis again');
      assert.equal(infos.length, 1);
    } finally {
      await limiter.close();
      await direct.close();
      await relay.stop();
    }
  });

  test('Redis connected but silent: answers come within the command timeout, not never', async () => {
    const relay = new RedisRelay();
    const url = await relay.start();
    const limiter = await RedisLimiter.connect(url, undefined, testPrefix());
    try {
      relay.frozen = true;
      const started = Date.now();
      const acct = `acc_${randomUUID()}`;
      const d = await limiter.hit(acct, [{ windowSeconds: 60, limit: 5 }]);
      assert.equal(d.allowed, true);
      const s = await limiter.acquireSlot(acct, 1, 10_000);
      assert.ok(s.ok);
      await limiter.releaseSlot(acct, s.slotId);
      assert.ok(Date.now() - started < 4 * COMMAND_TIMEOUT_MS, `answered in ${Date.now() - started} ms`);
    } finally {
      relay.frozen = false;
      await limiter.close();
      await relay.stop();
    }
  });
});
