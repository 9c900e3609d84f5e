// API overhead (issue 6): GET /api/v1/models with authentication, rate limiting and concurrency
// accounting, against a bare Fastify route returning the same JSON, same load generator
// (autocannon), same run; with the memory limiter and with the Redis limiter.
// Run: node --import tsx bench/api-overhead.ts   (Redis at 127.0.0.1:6379 for the second row)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import autocannon from 'autocannon';
import { median, startBenchServer, table } from './lib.js';

const RUNS = Number(process.env.RUNS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);

async function load(url: string, headers: Record<string, string> = {}): Promise<number> {
  const r = await autocannon({ url, connections: 20, duration: SECONDS, headers });
  return r.requests.average;
}

// Limits high enough that every request passes: the point is the cost of the accounting itself.
const override = path.join(mkdtempSync(path.join(tmpdir(), 'bench-api-')), 'parla.json');
writeFileSync(override, JSON.stringify({ plans: { enterprise: { requestsPerMinute: 100_000_000, requestsPerHour: 100_000_000, concurrent: 1000 } } }));
const rows: Array<Record<string, string | number>> = [];
for (const limiter of ['memory', 'redis'] as const) {
  const server = await startBenchServer({ PARLA_CONFIG: override, ...(limiter === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}) });
  const models = await (await fetch(`${server.url}/api/v1/models`, { headers: { 'x-api-key': server.apiKey } })).text();
  const bare = Fastify();
  bare.get('/api/v1/models', async (_req, reply) => reply.type('application/json').send(models));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/api/v1/models`;
  const parla: number[] = [];
  const base: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      base.push(await load(bareUrl));
      parla.push(await load(`${server.url}/api/v1/models`, { 'x-api-key': server.apiKey }));
    }
  } finally {
    await bare.close();
    await server.stop();
  }
  rows.push({ limiter, parla_rps: median(parla), bare_rps: median(base), ratio: median(parla) / median(base), goal: '>= 0.5' });
}
console.log(`API overhead, ${new Date().toISOString()}, ${RUNS} runs of ${SECONDS} s each, 20 connections, medians\n`);
console.log(table(rows));
