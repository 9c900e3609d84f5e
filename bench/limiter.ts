// Cost of the per-request limit accounting alone (the windows hit, a slot acquired and released),
// for the memory and the Redis limiter: microseconds per request with 1 and with 20 requests in
// flight. Run: node --import tsx bench/limiter.ts   (Redis at 127.0.0.1:6379 for the Redis rows)
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Limiter } from '../src/limits/limiter.js';
import { MemoryLimiter } from '../src/limits/memory-limiter.js';
import { RedisLimiter } from '../src/limits/redis-limiter.js';
import { median, table } from './lib.js';

const REQUESTS = Number(process.env.REQUESTS ?? 5000);
const RUNS = Number(process.env.RUNS ?? 3);
const windows = [{ windowSeconds: 60, limit: 100_000_000 }, { windowSeconds: 3600, limit: 100_000_000 }];

async function request(l: Limiter, acct: string): Promise<void> {
  const d = await l.hit(acct, windows);
  if (!d.allowed) throw new Error('refused');
  const s = await l.acquireSlot(acct, 1000, 30_000);
  if (!s.ok) throw new Error('no slot');
  await l.releaseSlot(acct, s.slotId);
}

async function usPerRequest(l: Limiter, inFlight: number): Promise<number> {
  const acct = `acc_${randomUUID()}`;
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => { while (next++ < REQUESTS) await request(l, acct); }));
  return ((performance.now() - started) * 1000) / REQUESTS;
}

const prefix = `parla-bench-${randomUUID()}:`;
const rows: Array<Record<string, string | number>> = [];
for (const kind of ['memory', 'redis'] as const) {
  const l: Limiter = kind === 'memory' ? new MemoryLimiter() : await RedisLimiter.connect('redis://127.0.0.1:6379', undefined, prefix);
  await usPerRequest(l, 20); // warm-up
  for (const inFlight of [1, 20]) {
    const xs: number[] = [];
    for (let i = 0; i < RUNS; i++) xs.push(await usPerRequest(l, inFlight));
    rows.push({ limiter: kind, in_flight: inFlight, us_per_request: median(xs), requests_per_s: Math.round(1e6 / median(xs)) });
  }
  await l.close();
}
const redis = new Redis('redis://127.0.0.1:6379');
const keys: string[] = [];
for await (const batch of redis.scanStream({ match: `${prefix}*` })) keys.push(...(batch as string[]));
if (keys.length) await redis.del(...keys);
await redis.quit();
console.log(`Limit accounting per request (hit 2 windows + acquire + release), ${new Date().toISOString()}, ${REQUESTS} requests x ${RUNS} runs, medians\n`);
console.log(table(rows));
