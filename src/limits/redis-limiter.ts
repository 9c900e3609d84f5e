// RedisLimiter: limits shared by every node (REDIS_URL). Rate windows are counters with a TTL
// (fixed windows from an account's first request, the key layout of rate-limiter-flexible's
// RateLimiterRedis); concurrency slots are a sorted set per account (slot id -> lease expiry).
// Both change only inside Lua scripts, so a decision is atomic across nodes, and a request's
// windows and slot are decided in one script: one round trip per API request (`admit`). A crashed
// node's slots disappear when their lease runs out. Lease times come from the Redis clock (TIME),
// so nodes whose clocks disagree still agree on when a lease ends.
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
import type { FastifyBaseLogger } from 'fastify';
import type { Admission, Limiter, RateDecision, RateWindow, SlotDecision } from './limiter.js';
import { MemoryLimiter, slotRetryAfter } from './memory-limiter.js';
import { rateDecision, type WindowCount } from './windows.js';

/** A Redis command that has not answered by then counts as Redis being unreachable. */
export const COMMAND_TIMEOUT_MS = 1000;

const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
// The key lives exactly as long as its longest lease, so idle accounts leave nothing behind.
const EXPIRE_WITH_LAST_LEASE = `local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[1], tonumber(last[2])) end`;

/** Takes a slot of the sorted set `key` -> {1, inUse, 0} | {0, inUse, ms until the first lease ends}. */
const TAKE_SLOT = `local function take_slot(key, max, lease, id)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local n = redis.call('ZCARD', key)
  if n >= max then
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local wait = 1000
    if first[2] then wait = tonumber(first[2]) - now end
    return {0, n, wait}
  end
  redis.call('ZADD', key, now + lease, id)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIREAT', key, tonumber(last[2])) end
  return {1, n + 1, 0}
end`;

/** KEYS[1] slots; ARGV max, leaseMs, slotId -> take_slot's answer. */
const ACQUIRE = `${NOW_MS}
${TAKE_SLOT}
return take_slot(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])`;

/**
 * KEYS: one counter per window, then (optionally) the slots. ARGV: the number of windows, each
 * window's seconds and limit, then (with a slots key) max, leaseMs, slotId.
 * -> {count_1, pttl_1, ..., count_n, pttl_n, slot...}: each count includes this request; the
 * request is counted in every window only when none goes over its limit, and only then is a slot
 * taken (take_slot's three numbers follow; none when refused or no slots key was given).
 */
const ADMIT = `${NOW_MS}
${TAKE_SLOT}
local n = tonumber(ARGV[1])
local out = {}
local allowed = true
for i = 1, n do
  local seconds, limit = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  redis.call('SET', KEYS[i], 0, 'EX', seconds, 'NX')
  local count = tonumber(redis.call('GET', KEYS[i])) + 1
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    redis.call('EXPIRE', KEYS[i], seconds)
    ttl = seconds * 1000
  end
  out[2 * i - 1], out[2 * i] = count, ttl
  if count > limit then allowed = false end
end
if not allowed then return out end
for i = 1, n do redis.call('INCR', KEYS[i]) end
if #KEYS > n then
  local slot = take_slot(KEYS[n + 1], tonumber(ARGV[2 * n + 2]), tonumber(ARGV[2 * n + 3]), ARGV[2 * n + 4])
  for j = 1, 3 do out[2 * n + j] = slot[j] end
end
return out`;

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
  parlaAdmit(numKeys: number, ...keysAndArgs: Array<string | number>): Promise<number[]>;
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
  private readonly cmd: SlotCommands;
  /** This node's own limits while Redis is unreachable. */
  private readonly local = new MemoryLimiter();
  private reachable = true;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log?: FastifyBaseLogger,
  ) {
    redis.defineCommand('parlaAdmit', { lua: ADMIT });
    redis.defineCommand('parlaSlotAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    redis.defineCommand('parlaSlotRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('parlaSlotCount', { numberOfKeys: 1, lua: COUNT });
    this.cmd = redis as unknown as SlotCommands;
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

  /** rate-limiter-flexible's key for the window, so counts carry over from nodes that used it. */
  private windowKey(accountId: string, windowSeconds: number): string {
    return `${this.prefix}rl${windowSeconds}:${accountId}`;
  }

  /** Runs ADMIT: the windows' counts and, when asked and allowed, the slot answer. */
  private async runAdmit(accountId: string, windows: RateWindow[], slot?: { max: number; leaseMs: number; slotId: string }): Promise<{ counted: WindowCount[]; slot: number[] | null }> {
    const keys = windows.map((w) => this.windowKey(accountId, w.windowSeconds));
    const args: Array<string | number> = [windows.length, ...windows.flatMap((w) => [w.windowSeconds, w.limit])];
    if (slot) {
      keys.push(this.slotKey(accountId));
      args.push(slot.max, Math.ceil(slot.leaseMs), slot.slotId);
    }
    const out = await this.cmd.parlaAdmit(keys.length, ...keys, ...args);
    this.isBack();
    const counted = windows.map((_, i) => ({ consumedPoints: Number(out[2 * i]), msBeforeNext: Number(out[2 * i + 1]) }));
    return { counted, slot: out.length > 2 * windows.length ? out.slice(2 * windows.length).map(Number) : null };
  }

  async hit(accountId: string, windows: RateWindow[]): Promise<RateDecision> {
    if (windows.length === 0) throw new Error('RedisLimiter.hit needs at least one window');
    try {
      return rateDecision(windows, (await this.runAdmit(accountId, windows)).counted);
    } catch (err) {
      this.unreachable(err);
      return this.local.hit(accountId, windows);
    }
  }

  async admit(accountId: string, windows: RateWindow[], maxSlots: number, leaseMs: number): Promise<Admission> {
    if (windows.length === 0) throw new Error('RedisLimiter.admit needs at least one window');
    // Fallback slots still held from an outage count against the same maximum.
    const heldLocally = await this.local.slotsInUse(accountId);
    const slotId = randomUUID();
    try {
      const r = await this.runAdmit(accountId, windows, { max: maxSlots - heldLocally, leaseMs, slotId });
      const rate = rateDecision(windows, r.counted);
      return { rate, slot: rate.allowed && r.slot ? this.slotAnswer(r.slot, slotId, heldLocally) : null };
    } catch (err) {
      this.unreachable(err);
      const local = await this.local.admit(accountId, windows, maxSlots, leaseMs);
      return { rate: local.rate, slot: local.slot?.ok ? { ...local.slot, slotId: LOCAL_SLOT + local.slot.slotId } : local.slot };
    }
  }

  private slotAnswer([ok, n, waitMs]: number[], slotId: string, heldLocally: number): SlotDecision {
    if (ok === 1) return { ok: true, slotId, inUse: n! + heldLocally };
    return { ok: false, inUse: n! + heldLocally, retryAfter: slotRetryAfter(waitMs!) };
  }

  async acquireSlot(accountId: string, max: number, leaseMs: number): Promise<SlotDecision> {
    // Fallback slots still held from an outage count against the same maximum.
    const heldLocally = await this.local.slotsInUse(accountId);
    const slotId = randomUUID();
    try {
      const answer = await this.cmd.parlaSlotAcquire(this.slotKey(accountId), max - heldLocally, Math.ceil(leaseMs), slotId);
      this.isBack();
      return this.slotAnswer(answer, slotId, heldLocally);
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
