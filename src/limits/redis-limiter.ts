// RedisLimiter: limits shared by every node (REDIS_URL). Rate windows use rate-limiter-flexible's
// atomic Redis counters; concurrency slots are a sorted set per account (slot id -> lease expiry)
// changed only by Lua scripts, so acquire is atomic across nodes and a crashed node's slots
// disappear when their lease runs out. Lease times come from the Redis clock (TIME), so nodes
// whose clocks disagree still agree on when a lease ends.
//
// When Redis is unreachable (down, or not answering within COMMAND_TIMEOUT_MS) each node falls
// back to its own in-memory counters and slots, logged once per outage: requests keep getting
// ordinary answers, never a hang or a crash, and each node still enforces the plan limits for the
// traffic it sees (so with N nodes an account can get up to N times its limits until Redis is
// back). Slots taken from the fallback are released to it; Redis slots whose release failed during
// the outage free themselves when their lease ends. Credits never depend on Redis.
// At startup an unreachable Redis is an error: a wrong REDIS_URL must not silently become per-node limits.

import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { FastifyBaseLogger } from 'fastify';
import type { Limiter, RateDecision, RateWindow, SlotDecision } from './limiter.js';
import { MemoryLimiter, slotRetryAfter } from './memory-limiter.js';
import { UNLIMITED_POINTS, WindowCounter } from './windows.js';

/** A Redis command that has not answered by then counts as Redis being unreachable. */
export const COMMAND_TIMEOUT_MS = 1000;

const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
// The key lives exactly as long as its longest lease, so idle accounts leave nothing behind.
const EXPIRE_WITH_LAST_LEASE = `local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], tonumber(last[2])) end`;

/** KEYS[1] slots; ARGV max, leaseMs, slotId -> {1, inUse, 0} | {0, inUse, ms until the first lease ends}. */
const ACQUIRE = `${NOW_MS}
local max, lease, id = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
if n >= max then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = 1000
  if first[2] then wait = tonumber(first[2]) - now end
  return {0, n, wait}
end
redis.call('ZADD', KEYS[1], now + lease, id)
${EXPIRE_WITH_LAST_LEASE}
return {1, n + 1, 0}`;

/** KEYS[1] slots; ARGV slotId, leaseMs. An expired lease is not renewed: its slot may be someone else's now. */
const RENEW = `${NOW_MS}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) <= now then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
${EXPIRE_WITH_LAST_LEASE}
return 1`;

const COUNT = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])`;

interface SlotCommands {
  parlaSlotAcquire(key: string, max: number, leaseMs: number, slotId: string): Promise<[number, number, number]>;
  parlaSlotRenew(key: string, slotId: string, leaseMs: number): Promise<number>;
  parlaSlotCount(key: string): Promise<number>;
}

/** Slots handed out by the fallback while Redis was unreachable carry this prefix. */
const LOCAL_SLOT = 'local:';

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'REDIS_URL';
  }
}

export class RedisLimiter implements Limiter {
  readonly kind = 'redis' as const;
  private readonly windows: WindowCounter;
  private readonly cmd: SlotCommands;
  /** This node's own limits while Redis is unreachable. */
  private readonly local = new MemoryLimiter();
  private reachable = true;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log?: FastifyBaseLogger,
  ) {
    redis.defineCommand('parlaSlotAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    redis.defineCommand('parlaSlotRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('parlaSlotCount', { numberOfKeys: 1, lua: COUNT });
    this.cmd = redis as unknown as SlotCommands;
    this.windows = new WindowCounter(
      (windowSeconds) =>
        new RateLimiterRedis({
          storeClient: redis,
          points: UNLIMITED_POINTS,
          duration: windowSeconds,
          keyPrefix: `${prefix}rl${windowSeconds}`,
          useRedisPackage: false,
          rejectIfRedisNotReady: true,
          // The library switches to it on any Redis error: per-node counting during an outage.
          insuranceLimiter: new RateLimiterMemory({ points: UNLIMITED_POINTS, duration: windowSeconds, keyPrefix: `local-rl${windowSeconds}` }),
        }),
    );
    redis.on('error', (err: unknown) => this.unreachable(err));
    redis.on('close', () => this.unreachable(new Error('connection closed')));
    redis.on('ready', () => this.isBack());
  }

  static async connect(url: string, log?: FastifyBaseLogger, prefix = 'parla:'): Promise<RedisLimiter> {
    const redis = new Redis(url, {
      lazyConnect: true,
      connectTimeout: 2000,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Fail at once while disconnected instead of queueing requests behind a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // Keep reconnecting, at most every 2 s, for as long as the process runs.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
    } catch (err) {
      redis.disconnect();
      throw new Error(`Redis at ${redact(url)} is unreachable: ${(err as Error).message}`);
    }
    return new RedisLimiter(redis, prefix, log);
  }

  private slotKey(accountId: string): string {
    return `${this.prefix}slots:${accountId}`;
  }

  private unreachable(err: unknown): void {
    if (!this.reachable) return;
    this.reachable = false;
    this.log?.warn({ err }, 'Redis unreachable: each node enforces rate limits and concurrency slots on its own until it returns');
  }

  private isBack(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.log?.info('Redis reachable again: rate limits and concurrency slots are shared by every node');
  }

  hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    // Redis errors never surface here: rate-limiter-flexible answers from the insurance limiter.
    return this.windows.hit(accountId, windows);
  }

  async acquireSlot(accountId: string, max: number, leaseMs: number): Promise<SlotDecision> {
    // Fallback slots still held from an outage count against the same maximum.
    const heldLocally = await this.local.slotsInUse(accountId);
    const slotId = randomUUID();
    try {
      const [ok, n, waitMs] = await this.cmd.parlaSlotAcquire(this.slotKey(accountId), max - heldLocally, Math.ceil(leaseMs), slotId);
      this.isBack();
      if (ok === 1) return { ok: true, slotId, inUse: n + heldLocally };
      return { ok: false, inUse: n + heldLocally, retryAfter: slotRetryAfter(waitMs) };
    } catch (err) {
      this.unreachable(err);
      const d = await this.local.acquireSlot(accountId, max, leaseMs);
      return d.ok ? { ...d, slotId: LOCAL_SLOT + d.slotId } : d;
    }
  }

  async renewSlot(accountId: string, slotId: string, leaseMs: number): Promise<void> {
    if (slotId.startsWith(LOCAL_SLOT)) return this.local.renewSlot(accountId, slotId.slice(LOCAL_SLOT.length), leaseMs);
    await this.cmd.parlaSlotRenew(this.slotKey(accountId), slotId, Math.ceil(leaseMs)).catch((err: unknown) => this.unreachable(err));
  }

  async releaseSlot(accountId: string, slotId: string): Promise<void> {
    if (slotId.startsWith(LOCAL_SLOT)) return this.local.releaseSlot(accountId, slotId.slice(LOCAL_SLOT.length));
    await this.redis.zrem(this.slotKey(accountId), slotId).catch((err: unknown) => this.unreachable(err));
  }

  async slotsInUse(accountId: string): Promise<number> {
    const local = await this.local.slotsInUse(accountId);
    try {
      return local + Number(await this.cmd.parlaSlotCount(this.slotKey(accountId)));
    } catch (err) {
      this.unreachable(err);
      return local;
    }
  }

  async close(): Promise<void> {
    this.redis.removeAllListeners('close');
    await this.redis.quit().catch(() => this.redis.disconnect());
    await this.local.close();
  }
}
