// Cost of the per-request limit accounting alone, for the memory and the Redis limiter:
// microseconds per request with 1 and with 20 requests in flight, done as every API request does
// it (admit: the windows and a slot in one step, then release) and as separate calls (hit,
// acquireSlot, releaseSlot; with Redis one round trip each).
// Run: node --import tsx bench/limiter.ts   (Redis at 127.0.0.1:6379 for the Redis rows)
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import type { Limiter } from '../src/limits/limiter.js';
import { MemoryLimiter } from '../src/limits/memory-limiter.js';
import { RedisLimiter } from '../src/limits/redis-limiter.js';
import { median, table } from './lib.js';

const REQUESTS = Number(process.env.REQUESTS ?? 5000);
const RUNS = Number(process.env.RUNS ?? 3);
const windows = [
  { windowSeconds: 60, limit: 100_000_000 },
  { windowSeconds: 3600, limit: 100_000_000 },
];

type Way = 'admit + release' | 'hit + acquire + release';

async function request(l: Limiter, acct: string, way: Way): Promise<void> {
  let slotId: string;
  if (way === 'admit + release') {
    const a = await l.admit(acct, windows, 1000, 30_000);
    if (!a.rate.allowed || !a.slot?.ok) throw new Error('refused');
    slotId = a.slot.slotId;
  } else {
    const d = await l.hit(acct, windows);
    if (!d.allowed) throw new Error('refused');
    const s = await l.acquireSlot(acct, 1000, 30_000);
    if (!s.ok) throw new Error('no slot');
    slotId = s.slotId;
  }
  await l.releaseSlot(acct, slotId);
}

async function usPerRequest(l: Limiter, inFlight: number, way: Way): Promise<number> {
  const acct = `acc_${randomUUID()}`;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < REQUESTS) await request(l, acct, way);
    }),
  );
  return ((performance.now() - started) * 1000) / REQUESTS;
}

const prefix = `parla-bench-${randomUUID()}:`;
const rows: Array<Record<string, string | number>> = [];
for (const kind of ['memory', 'redis'] as const) {
  const l: Limiter = kind === 'memory' ? new MemoryLimiter() : await RedisLimiter.connect('redis://127.0.0.1:6379', undefined, prefix);
  for (const way of ['admit + release', 'hit + acquire + release'] as const) {
    await usPerRequest(l, 20, way); // warm-up
    for (const inFlight of [1, 20]) {
      const xs: number[] = [];
      for (let i = 0; i < RUNS; i++) xs.push(await usPerRequest(l, inFlight, way));
      rows.push({
        limiter: kind,
        calls: way,
        in_flight: inFlight,
        us_per_request: median(xs),
        requests_per_s: Math.round(1e6 / median(xs)),
      });
    }
  }
  await l.close();
}
const redis = new Redis('redis://127.0.0.1:6379');
const keys: string[] = [];
for await (const batch of redis.scanStream({ match: `${prefix}*` })) keys.push(...(batch as string[]));
if (keys.length) await redis.del(...keys);
await redis.quit();
console.log(
  `Limit accounting per request (2 windows and a slot), ${new Date().toISOString()}, ${REQUESTS} requests x ${RUNS} runs, medians, load average ${loadavg()[0]!.toFixed(2)}\n`,
);
console.log(table(rows));
