// Hostile decoding load and the service's memory (issue 30, items 2, 3 and 12): the compiled
// server's resident memory before, at its peak and up to 30 s after a load of mutated files of
// every container (test/hostile/decode-corpus.ts), a 24 MB WAV at 1 kHz 8-bit (6.7 hours), an hour
// of FLAC silence and, unless SKIP_CRASH=1 (a build without decoder processes dies of it), the M4A
// that exhausted the heap. Reports the answers by status, the worst /health time during the load,
// the service's own RSS and that of its whole process tree (decoders included).
// Run: node --import tsx bench/hostile-decode.ts   (ROOT=<another checkout> for the build before;
// COPIES=8 mutated copies per container; CONCURRENCY=4; MAX_AUDIO=1800 sets PARLA_STT_MAX_AUDIO_SECONDS, so
// the hour of FLAC is refused by a build that has the cap instead of being recognized for minutes
// past the measurement)
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBenchServer, table } from './lib.js';
import { buildCorpus, declaredLongFiles, HEAP_CRASH_M4A } from '../test/hostile/decode-corpus.js';

const ROOT = process.env.ROOT ?? process.cwd();
const COPIES = Number(process.env.COPIES ?? 8);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const AFTER_S = Number(process.env.AFTER_S ?? 30);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** RSS of the process and every descendant (the spawner helper, decoder processes, ffmpeg). */
function treeMb(pid: number): number {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    total += rssMb(p);
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

const dir = mkdtempSync(path.join(tmpdir(), 'bench-hostile-decode-'));
const { longWav, hourFlac } = declaredLongFiles(dir);
const inputs: Array<{ name: string; bytes: Buffer }> = [
  ...buildCorpus(COPIES).map((f) => ({ name: f.name, bytes: f.bytes })),
  { name: 'wav 6.7 h at 1 kHz 8-bit', bytes: readFileSync(longWav) },
  { name: 'flac 1 h of silence', bytes: readFileSync(hourFlac) },
  ...(process.env.SKIP_CRASH === '1' ? [] : [{ name: 'm4a heap crash', bytes: readFileSync(HEAP_CRASH_M4A) }]),
];

const server = await startBenchServer(
  { PARLA_WORKERS: process.env.PARLA_WORKERS ?? '2', PARLA_STT_MAX_AUDIO_SECONDS: process.env.MAX_AUDIO ?? '1800' },
  ROOT,
);
const pid = server.proc.pid!;
let exited: string | null = null;
server.proc.once('exit', (code, sig) => (exited = `exited (${sig ?? code})`));
const url = `${server.url}/v1/listen?model=nova-3`;
try {
  // Warm: one clean file through the whole path.
  await fetch(url, { method: 'POST', headers: { authorization: `Token ${server.apiKey}` }, body: inputs[0]!.bytes }).then((r) =>
    r.arrayBuffer(),
  );
  await sleep(3000);
  const before = rssMb(pid);
  const treeBefore = treeMb(pid);
  let peak = before;
  let treePeak = treeBefore;
  let worstHealth = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
    treePeak = Math.max(treePeak, treeMb(pid));
  }, 200);
  const health = setInterval(async () => {
    const t = performance.now();
    try {
      await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
      worstHealth = Math.max(worstHealth, performance.now() - t);
    } catch {
      worstHealth = Infinity;
    }
  }, 250);
  const byStatus = new Map<string, number>();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < inputs.length && exited === null) {
        const input = inputs[next++]!;
        let status: string;
        try {
          const res = await fetch(url, { method: 'POST', headers: { authorization: `Token ${server.apiKey}` }, body: input.bytes });
          await res.arrayBuffer();
          status = String(res.status);
        } catch {
          status = 'no answer';
        }
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      }
    }),
  );
  const loadS = (performance.now() - started) / 1000;
  clearInterval(health);
  const after: Record<string, string | number> = {};
  for (let s = 0; s <= AFTER_S; s += 10) {
    if (s > 0) await sleep(10_000);
    after[`rss +${s}s`] = Math.round(rssMb(pid));
    after[`tree +${s}s`] = Math.round(treeMb(pid));
  }
  clearInterval(sampler);
  console.log(
    `build: ${ROOT}; inputs: ${inputs.length} (${COPIES} mutated copies per container), concurrency ${CONCURRENCY}; load took ${loadS.toFixed(1)} s`,
  );
  console.log(
    `answers: ${JSON.stringify(Object.fromEntries(byStatus))}; process: ${exited ?? 'still serving'}; worst /health ${worstHealth.toFixed(0)} ms`,
  );
  console.log(
    table([
      {
        'rss before': Math.round(before),
        'rss peak': Math.round(peak),
        'tree before': Math.round(treeBefore),
        'tree peak': Math.round(treePeak),
        ...after,
      },
    ]),
  );
} finally {
  await server.stop();
}
