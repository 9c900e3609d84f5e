// RedisLimiter: limits shared by every node (REDIS_URL). Rate windows use rate-limiter-flexible's
// atomic Redis counters; concurrency slots are a sorted set per account (slot id -> lease expiry)
// changed only by Lua scripts, so acquire is atomic across nodes and a crashed node's slots
// disappear when their lease runs out.
//
// When Redis is unreachable the limiter fails open for rate windows and slots (logged once per
// outage): limits are a protection for the service, and refusing every paying request because
// the limiter's cache is down would be the worse failure. Credits are still enforced by the store.

import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { FastifyBaseLogger } from 'fastify';
import type { Limiter, RateDecision, RateWindow, SlotDecision } from './limiter.js';
import { WindowCounter } from './windows.js';

const ACQUIRE = `
local key, max, now, lease, id = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
local n = redis.call('ZCARD', key)
if n >= max then
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, n, tonumber(first[2] or now)}
end
redis.call('ZADD', key, now + lease, id)
redis.call('PEXPIRE', key, lease * 2)
return {1, n + 1, 0}
`;
const RENEW = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
end
return 1
`;
const COUNT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
`;

export class RedisLimiter implements Limiter {
  readonly kind = 'redis' as const;
  private readonly windows: WindowCounter;
  private warned = false;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log?: FastifyBaseLogger,
  ) {
    this.windows = new WindowCounter(
      (w) => new RateLimiterRedis({ storeClient: redis, points: w.limit, duration: w.windowSeconds, keyPrefix: `${prefix}rl${w.windowSeconds}`, useRedisPackage: false }),
    );
  }

  static async connect(url: string, log?: FastifyBaseLogger, prefix = 'parla:'): Promise<RedisLimiter> {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, lazyConnect: true });
    redis.on('error', () => undefined);
    await redis.connect();
    return new RedisLimiter(redis, prefix, log);
  }

  private slotKey(accountId: string): string {
    return `${this.prefix}slots:${accountId}`;
  }

  private degraded(err: unknown): void {
    if (!this.warned) {
      this.warned = true;
      this.log?.warn({ err }, 'Redis unreachable: rate limits and concurrency slots are not enforced until it returns');
    }
  }

  async hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    try {
      const d = await this.windows.hit(accountId, windows);
      this.warned = false;
      return d;
    } catch (err) {
      this.degraded(err);
      const states = windows.map((w) => ({ windowSeconds: w.windowSeconds, limit: w.limit, remaining: w.limit, resetSeconds: w.windowSeconds }));
      const first = states[0] ?? { windowSeconds: 60, limit: 0, remaining: 0, resetSeconds: 60 };
      return { allowed: true, limit: first.limit, remaining: first.remaining, resetSeconds: first.resetSeconds, retryAfter: 0, windows: states };
    }
  }

  async acquireSlot(accountId: string, max: number, leaseMs: number): Promise<SlotDecision> {
    const slotId = randomUUID();
    try {
      const [ok, n, firstExpiry] = (await this.redis.eval(ACQUIRE, 1, this.slotKey(accountId), max, Date.now(), leaseMs, slotId)) as [number, number, number];
      if (ok === 1) return { ok: true, slotId, inUse: n };
      return { ok: false, inUse: n, retryAfter: Math.max(1, Math.min(5, Math.ceil((firstExpiry - Date.now()) / 1000))) };
    } catch (err) {
      this.degraded(err);
      return { ok: true, slotId, inUse: 0 };
    }
  }

  async renewSlot(accountId: string, slotId: string, leaseMs: number): Promise<void> {
    await this.redis.eval(RENEW, 1, this.slotKey(accountId), slotId, Date.now(), leaseMs).catch((err: unknown) => this.degraded(err));
  }

  async releaseSlot(accountId: string, slotId: string): Promise<void> {
    await this.redis.zrem(this.slotKey(accountId), slotId).catch((err: unknown) => this.degraded(err));
  }

  async slotsInUse(accountId: string): Promise<number> {
    try {
      return Number(await this.redis.eval(COUNT, 1, this.slotKey(accountId), Date.now()));
    } catch (err) {
      this.degraded(err);
      return 0;
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
