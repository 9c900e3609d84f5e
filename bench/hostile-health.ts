// /health latency (p50, p99) while the hostile corpus of issue 19 (test/hostile/corpus.ts) runs
// against the compiled server, side by side with the idle server: what one attacker with one key
// costs everyone else on the node. Medians over BENCH_RUNS runs (default 3).
//
//   node --import tsx bench/hostile-health.ts
//
// BENCH_HEALTH_SAMPLES /health requests per phase (default 300, one every 10 ms), BENCH_ATTACKERS
// concurrent corpus senders (default 2). Cases marked `requires` (the largest inputs of the
// superlinear markup defect: minutes to hours of a blocked loop on unfixed code) are sent only
// with BENCH_ALL=1. Cases of the 0-credit account go with the same key (there is one account).

import { setTimeout as sleep } from 'node:timers/promises';
import { median, startBenchServer, table } from './lib.js';
import { highLimitsConfig } from './api-load.js';
import { hostileCorpus, type HostileCase } from '../test/hostile/corpus.js';
import { sendRaw, type RawRequest } from '../test/hostile/wire.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SAMPLES = Number(process.env.BENCH_HEALTH_SAMPLES ?? 300);
const ATTACKERS = Number(process.env.BENCH_ATTACKERS ?? 2);
const ALL = process.env.BENCH_ALL === '1';

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function shuffled<T>(xs: T[]): T[] {
  const out = [...xs];
  let x = 19;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) >>> 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function healthLatencies(port: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    const o = await sendRaw(port, { method: 'GET', path: '/health', headers: [], body: Buffer.alloc(0) }, 120_000);
    out.push(performance.now() - t0);
    if (o.kind !== 'answer' || o.res.status !== 200) throw new Error(`/health failed: ${JSON.stringify(o).slice(0, 200)}`);
    await sleep(10);
  }
  return out;
}

function asRequest(c: HostileCase, key: string): RawRequest {
  const auth: Array<[string, string]> =
    c.who === 'rich' || c.who === 'broke' ? [['X-API-Key', key]] : c.who === 'bad-key' ? [['X-API-Key', 'svc_live_' + '0'.repeat(40)]] : [];
  return {
    method: c.method,
    path: c.path,
    headers: [...auth, ...(c.headers ?? [])],
    body: c.body ?? Buffer.alloc(0),
    contentLength: c.contentLength,
  };
}

async function main(): Promise<void> {
  const corpus = hostileCorpus().filter((c) => ALL || !c.requires);
  const server = await startBenchServer({ PARLA_CONFIG: highLimitsConfig() });
  const port = Number(new URL(server.url).port);
  // A fixed shuffle, and one cursor across runs: every loaded phase meets a mix of all groups.
  const requests = shuffled(corpus.map((c) => asRequest(c, server.apiKey)));
  let cursor = 0;
  const rows: Array<{ idleP50: number; idleP99: number; loadP50: number; loadP99: number; sent: number; statuses: Map<string, number> }> =
    [];
  try {
    // Warm the engines, codecs and recognizer once.
    for (const c of ['{"text":"Hi.","voice":"Aria"}', '{"text":"Hi.","voice":"Aria","model":"aura-lite"}']) {
      await sendRaw(
        port,
        {
          method: 'POST',
          path: '/api/v1/tts/generate',
          headers: [
            ['X-API-Key', server.apiKey],
            ['Content-Type', 'application/json'],
          ],
          body: Buffer.from(c),
        },
        120_000,
      );
    }
    for (let run = 0; run < RUNS; run++) {
      const idle = await healthLatencies(port);
      let stop = false;
      let sent = 0;
      const statuses = new Map<string, number>();
      const attackers = Array.from({ length: ATTACKERS }, async () => {
        while (!stop) {
          const o = await sendRaw(port, requests[cursor++ % requests.length]!, 120_000);
          sent++;
          const k = o.kind === 'answer' ? String(o.res.status) : o.kind;
          statuses.set(k, (statuses.get(k) ?? 0) + 1);
        }
      });
      const loaded = await healthLatencies(port);
      stop = true;
      await Promise.all(attackers);
      rows.push({
        idleP50: percentile(idle, 50),
        idleP99: percentile(idle, 99),
        loadP50: percentile(loaded, 50),
        loadP99: percentile(loaded, 99),
        sent,
        statuses,
      });
      console.error(
        `run ${run + 1}: idle p50 ${rows.at(-1)!.idleP50.toFixed(1)} p99 ${rows.at(-1)!.idleP99.toFixed(1)} ms; under the corpus p50 ${rows.at(-1)!.loadP50.toFixed(1)} p99 ${rows.at(-1)!.loadP99.toFixed(1)} ms; ${sent} hostile requests ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    }
  } finally {
    await server.stop();
  }
  const m = (f: (r: (typeof rows)[number]) => number) => median(rows.map(f));
  console.log(
    `\n/health latency, ${SAMPLES} requests per phase, ${ATTACKERS} corpus senders (${corpus.length} cases), median of ${RUNS} runs${ALL ? '' : '; the largest superlinear-markup inputs left out (BENCH_ALL=1 sends them)'}\n`,
  );
  console.log(
    table([
      { phase: 'idle', 'p50 ms': m((r) => r.idleP50), 'p99 ms': m((r) => r.idleP99), 'hostile requests': '-' },
      {
        phase: 'hostile corpus running',
        'p50 ms': m((r) => r.loadP50),
        'p99 ms': m((r) => r.loadP99),
        'hostile requests': Math.round(m((r) => r.sent)),
      },
      {
        phase: 'ratio (hostile / idle)',
        'p50 ms': m((r) => r.loadP50 / r.idleP50),
        'p99 ms': m((r) => r.loadP99 / r.idleP99),
        'hostile requests': '',
      },
    ]),
  );
}

await main();
