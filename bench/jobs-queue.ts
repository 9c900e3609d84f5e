// Cost of the job queue in each implementation: enqueue, then claim + heartbeat + complete, per
// job, with 1 and with 4 workers (on PostgreSQL two queue instances stand for two nodes).
// Jobs run minutes, so these costs matter for how hard nodes may poll, not for throughput.
// Run: node --import tsx bench/jobs-queue.ts   (PostgreSQL at 127.0.0.1:5432)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SqliteJobQueue } from '../src/jobs/sqlite-queue.js';
import { PgBossJobQueue } from '../src/jobs/pgboss-queue.js';
import type { JobQueue } from '../src/jobs/queue.js';
import { table } from './lib.js';

const JOBS = Number(process.env.JOBS ?? 300);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const job = (i: number) => ({
  accountId: `acc_bench${i % 10}`,
  keyId: 'key_bench',
  mode: 'live' as const,
  params: { model: 'bench' },
  source: { type: 'url' as const, url: 'https://example.com/a.mp3' },
  callbackUrl: null,
  idempotencyKey: null,
  bodyHash: null,
});

async function measure(nodes: JobQueue[], workers: number): Promise<{ enqueueMs: number; cycleMs: number }> {
  const t0 = performance.now();
  for (let i = 0; i < JOBS; i++) await nodes[0]!.enqueue(job(i));
  const enqueueMs = (performance.now() - t0) / JOBS;
  const t1 = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const q = nodes[w % nodes.length]!;
      for (;;) {
        const c = await q.claim(`w${w}`, 60_000);
        if (!c) return;
        await q.heartbeat(c.lease, 60_000, 0.5);
        if (await q.complete(c.lease, { result: { text: 'x' }, creditsUsed: 1 })) done++;
      }
    }),
  );
  if (done !== JOBS) throw new Error(`completed ${done} of ${JOBS}`);
  return { enqueueMs, cycleMs: (performance.now() - t1) / JOBS };
}

const rows: Array<Record<string, string | number>> = [];
for (const workers of [1, 4]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-bench-jobs-'));
  const q = new SqliteJobQueue(path.join(dir, 'jobs.db'));
  await q.migrate();
  const r = await measure([q], workers);
  await q.close();
  rmSync(dir, { recursive: true, force: true });
  rows.push({
    queue: 'SQLite',
    workers,
    'enqueue ms/job': r.enqueueMs.toFixed(3),
    'claim+heartbeat+complete ms/job (wall)': r.cycleMs.toFixed(3),
  });
}
for (const workers of [1, 4]) {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const nodes = [new PgBossJobQueue(url, { bossSchema: `${schema}_boss` }), new PgBossJobQueue(url, { bossSchema: `${schema}_boss` })];
  for (const n of nodes) await n.migrate();
  const r = await measure(nodes, workers);
  for (const n of nodes) await n.close();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.query(`DROP SCHEMA ${schema}_boss CASCADE`);
  await admin.end();
  rows.push({
    queue: 'PostgreSQL + pg-boss',
    workers,
    'enqueue ms/job': r.enqueueMs.toFixed(3),
    'claim+heartbeat+complete ms/job (wall)': r.cycleMs.toFixed(3),
  });
}
console.log(`${JOBS} jobs per run`);
console.log(table(rows));
