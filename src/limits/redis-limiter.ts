// RedisLimiter: limits shared by every node (REDIS_URL). Rate windows are counters with a TTL
// (fixed windows from an account's first request, the key layout of rate-limiter-flexible's
// RateLimiterRedis); concurrency slots are a sorted set per account (slot id -> lease expiry).
// Both change only inside Lua scripts, so a decision is atomic across nodes, and a request's
// windows and slot are decided in one script. Admissions and slot releases go to Redis together,
// one script call at a time per node (AdmitBatcher). A crashed node's
// slots disappear when their lease runs out. Lease times come from the Redis clock (TIME),
// so nodes whose clocks disagree still agree on when a lease ends.
//
// When Redis is unreachable (down, or not answering within COMMAND_TIMEOUT_MS) each node falls
// back to its own in-memory counters and slots, logged once per outage: requests keep getting
// ordinary answers, never a hang or a crash, and each node still enforces the plan limits for the
// traffic it sees (so with N nodes an account can get up to N times its limits until Redis is
// back). Slots taken from the fallback are released to it; Redis slots whose release failed during
// the outage free themselves when their lease ends. Credits never depend on Redis.
// At startup an unreachable Redis is an error: a wrong REDIS_URL must not silently become per-node limits.

import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Admission, Limiter, RateDecision, RateWindow, SlotDecision } from './limiter.js';
import { MemoryLimiter, slotRetryAfter } from './memory-limiter.js';
import { rateDecision, type WindowCount } from './windows.js';
import { BATCH, COUNT, RENEW } from './redis-scripts.js';

/** A Redis command that has not answered by then counts as Redis being unreachable. */
export const COMMAND_TIMEOUT_MS = 1000;

interface SlotCommands {
  parlaBatch(numKeys: number, ...keysAndArgs: Array<string | number>): Promise<number[][]>;
  parlaSlotRenew(key: string, slotId: string, leaseMs: number): Promise<number>;
  parlaSlotCount(key: string): Promise<number>;
}

/** The windows of a slot asked for alone (acquireSlot). */
const NO_WINDOWS: readonly RateWindow[] = [];

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

/**
 * An admission's arguments but its slot id: n, each window's seconds and limit, then 1, max and
 * leaseMs (a slot is asked for) or 0. Built once per plan and reused (see RedisLimiter.specFor),
 * so the batch can tell by identity that an admission repeats the previous one's.
 */
type AdmitSpec = ReadonlyArray<number>;

/** Most admissions in one script call: a bigger batch would hold Redis (single-threaded) too long. */
const BATCH_MAX = 64;

/**
 * Collects admissions and slot releases and sends them as one BATCH script call: at the end of
 * the event-loop turn (setImmediate runs after every socket read of the turn) when no call is in
 * flight, else at the end of the turn in which the call in flight is answered, or at BATCH_MAX
 * admissions. Most of an admission's cost is per call, not per admission: ioredis's work per
 * command, a socket write and read on each side and the wake-ups of Redis and of this process;
 * Redis's own cost is mostly its per-call script overhead. Holding what arrives while a call is in
 * flight for the next one makes the calls as big as the load makes them (docs/benchmarks.md: at 20
 * connections ~12% less CPU per request here and ~20% less in Redis than a call per turn); a
 * caller waits at most for the call in flight and its own. If the call fails, every admission and
 * release in it fails, and each caller falls back as for a single command.
 */
class AdmitBatcher {
  private admits: Array<{
    keys: string[];
    spec: AdmitSpec;
    slotId: string | null;
    resolve(out: number[]): void;
    reject(err: unknown): void;
  }> = [];
  private releases: Array<{ key: string; slotId: string; resolve(): void; reject(err: unknown): void }> = [];
  private scheduled = false;
  /** Script calls sent and not answered yet (more than one only past BATCH_MAX). */
  private inFlight = 0;

  constructor(private readonly cmd: SlotCommands) {}

  /** `spec` is sent once for a run of admissions that share it (the same array). */
  admit(keys: string[], spec: AdmitSpec, slotId: string | null): Promise<number[]> {
    return new Promise((resolve, reject) => {
      this.admits.push({ keys, spec, slotId, resolve, reject });
      if (this.admits.length >= BATCH_MAX) this.flush();
      else this.schedule();
    });
  }

  /**
   * Settles once Redis has freed the slot: the HTTP hook writes a whole answer only then, so a
   * client at its concurrency limit that has its answer finds the slot free on any node.
   */
  release(key: string, slotId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.releases.push({ key, slotId, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight > 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const { admits, releases } = this;
    if (admits.length === 0 && releases.length === 0) return;
    this.inFlight++;
    this.admits = [];
    this.releases = [];
    const keys: string[] = [];
    const args: Array<string | number> = [releases.length];
    for (const r of releases) {
      keys.push(r.key);
      args.push(r.slotId);
    }
    args.push(admits.length);
    let previous: AdmitSpec | null = null;
    for (const a of admits) {
      for (const k of a.keys) keys.push(k);
      if (a.spec === previous) args.push(-1);
      else for (const v of a.spec) args.push(v);
      previous = a.spec;
      if (a.slotId !== null) args.push(a.slotId);
    }
    this.cmd.parlaBatch(keys.length, ...keys, ...args).then(
      (out) => {
        this.landed();
        for (const r of releases) r.resolve();
        admits.forEach((a, i) => a.resolve(out[i] ?? []));
      },
      (err: unknown) => {
        this.landed();
        for (const r of releases) r.reject(err);
        for (const a of admits) a.reject(err);
      },
    );
  }

  /** A call has its answer: what queued meanwhile goes at the end of this turn, as one call. */
  private landed(): void {
    this.inFlight--;
    if (this.admits.length > 0 || this.releases.length > 0) this.schedule();
  }
}

export class RedisLimiter implements Limiter {
  readonly kind = 'redis' as const;
  private readonly cmd: SlotCommands;
  /** This node's own limits while Redis is unreachable. */
  private readonly local = new MemoryLimiter();
  private reachable = true;
  private readonly batch: AdmitBatcher;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log?: FastifyBaseLogger,
  ) {
    redis.defineCommand('parlaBatch', { lua: BATCH });
    redis.defineCommand('parlaSlotRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('parlaSlotCount', { numberOfKeys: 1, lua: COUNT });
    this.cmd = redis as unknown as SlotCommands;
    this.batch = new AdmitBatcher(this.cmd);
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
    // The slot script extends expiries with PEXPIREAT ... GT (Redis 7.0): say so at start rather
    // than fail every admission later.
    const version = /redis_version:(\d+)/.exec(await redis.info('server'))?.[1];
    if (version !== undefined && Number(version) < 7) {
      redis.disconnect();
      throw new Error(`Redis at ${redact(url)} is version ${version}; Parla needs Redis 7.0 or later`);
    }
    return new RedisLimiter(redis, prefix, log);
  }

  /**
   * Slot ids are unique across nodes and restarts: this process's random prefix (96 bits) and a
   * counter. A UUID per request cost ~0.9 us; this is one string concatenation, and shorter ids
   * are fewer bytes for Redis to store and hash.
   */
  private readonly slotIdPrefix = randomBytes(12).toString('base64url');
  private slotSeq = 0;

  private nextSlotId(): string {
    return `${this.slotIdPrefix}${(++this.slotSeq).toString(36)}`;
  }

  /** The last spec built for each windows array (plans keep theirs for the life of the process). */
  private readonly specs = new WeakMap<readonly RateWindow[], { max: number | null; leaseMs: number; spec: AdmitSpec }>();

  /** The admission spec for these windows and slot terms: the same array as last time when they are unchanged. */
  private specFor(windows: readonly RateWindow[], max: number | null, leaseMs: number): AdmitSpec {
    const last = this.specs.get(windows);
    if (last && last.max === max && last.leaseMs === leaseMs) return last.spec;
    const spec: number[] = [windows.length];
    for (const w of windows) spec.push(w.windowSeconds, w.limit);
    if (max === null) spec.push(0);
    else spec.push(1, max, leaseMs);
    this.specs.set(windows, { max, leaseMs, spec });
    return spec;
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

  /** The windows' counts and, when asked and allowed, the slot answer (through the batch). */
  private async runAdmit(
    accountId: string,
    windows: RateWindow[],
    slot?: { max: number; leaseMs: number; slotId: string },
  ): Promise<{ counted: WindowCount[]; slot: number[] | null }> {
    const keys = windows.map((w) => this.windowKey(accountId, w.windowSeconds));
    if (slot) keys.push(this.slotKey(accountId));
    const out = await this.batch.admit(
      keys,
      this.specFor(windows, slot ? slot.max : null, slot ? Math.ceil(slot.leaseMs) : 0),
      slot ? slot.slotId : null,
    );
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
    const heldLocally = this.local.slotsHeld(accountId);
    const slotId = this.nextSlotId();
    try {
      const r = await this.runAdmit(accountId, windows, { max: maxSlots - heldLocally, leaseMs, slotId });
      const rate = rateDecision(windows, r.counted);
      return { rate, slot: rate.allowed && r.slot ? this.slotAnswer(r.slot, slotId, heldLocally) : null };
    } catch (err) {
      this.unreachable(err);
      const local = this.local.admitSync(accountId, windows, maxSlots, leaseMs);
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
    const slotId = this.nextSlotId();
    try {
      const answer = await this.batch.admit(
        [this.slotKey(accountId)],
        this.specFor(NO_WINDOWS, max - heldLocally, Math.ceil(leaseMs)),
        slotId,
      );
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

  releaseSlot(accountId: string, slotId: string): Promise<void> {
    if (slotId.startsWith(LOCAL_SLOT)) return this.local.releaseSlot(accountId, slotId.slice(LOCAL_SLOT.length));
    return this.batch.release(this.slotKey(accountId), slotId).catch((err: unknown) => this.unreachable(err));
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
