// The first recognition after the idle unload against a warm one, and a whole Parla node's resident
// memory (createServices with this machine's defaults, SQLite) as the model lifecycle loads and
// unloads PocketSphinx's decoders. Side by side in one run: per cycle, wait until the decoders are
// unloaded (PARLA_MODEL_TTL, 5 s here), time the first request per profile, then WARM more
// requests on the loaded decoders; medians over CYCLES cycles. Memory 10 s after start and after
// the first cycle's requests (the decoders of the last profile used still loaded).
// Run: node --import tsx bench/stt-idle-rss.ts  (CYCLES=3, WARM=3, TTL=5; PRELOAD=true creates
// decoders at start; PARLA_ROOT=/other/checkout measures that checkout's src/ with this script,
// for a before/after comparison on the same machine; JSON=1 adds a last line of JSON with the
// figures, which bench/headline.ts reads).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { table } from './lib.js';

const root = process.env.PARLA_ROOT ? path.resolve(process.env.PARLA_ROOT) : path.resolve(import.meta.dirname, '..');
const { loadConfig } = (await import(path.join(root, 'src/config.ts'))) as typeof import('../src/config.js');
const { createServices } = (await import(path.join(root, 'src/services.ts'))) as typeof import('../src/services.js');

const TTL = Number(process.env.TTL ?? 5);
const CYCLES = Number(process.env.CYCLES ?? 3);
const WARM = Number(process.env.WARM ?? 3);
const dir = mkdtempSync(path.join(tmpdir(), 'parla-idle-rss-'));
const mb = () => Math.round(process.memoryUsage().rss / 1048576);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const memory: Array<Record<string, string | number>> = [];

const before = mb();
const t0 = performance.now();
const env: Record<string, string | undefined> = {
  ...process.env,
  PARLA_DATA_DIR: dir,
  PARLA_MODEL_TTL: String(TTL),
  PARLA_SEED_DEMO: 'false',
  LOG_LEVEL: 'silent',
};
if (process.env.PRELOAD) env.PARLA_STT_PRELOAD = process.env.PRELOAD;
const config = loadConfig(env);
const services = await createServices(config, pino({ level: 'silent' }) as never);
const lc = services.lifecycle;
const names = () =>
  lc
    .resident()
    .map((r) => r.name)
    .join(', ') || '-';
memory.push({ moment: 'before createServices', 'RSS MB': before, 'resident models': '-' });
await sleep(Math.max(0, 10_000 - (performance.now() - t0)));
memory.push({ moment: '10 s after start', 'RSS MB': mb(), 'resident models': names() });

const raw = readFileSync('/usr/share/pocketsphinx/test/data/goforward.raw');
const pcm = new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
const ps = services.registry.sttEngines().find((e) => e.id === 'pocketsphinx')!;
const timed = async (profile: string) => {
  const t = performance.now();
  await ps.recognize(pcm, { language: 'en', profile });
  return performance.now() - t;
};
const idle = async () => {
  while (lc.resident().length > 0) await sleep(200);
  await sleep(500);
};
const profiles = ['fast', 'accurate'];
const cold: Record<string, number[]> = { fast: [], accurate: [] };
const warm: Record<string, number[]> = { fast: [], accurate: [] };
for (let c = 0; c < CYCLES; c++) {
  await idle();
  if (c === 0) memory.push({ moment: `after ${TTL} s idle`, 'RSS MB': mb(), 'resident models': names() });
  // Each profile's warm requests right after its first one: under load a reload of the other
  // profile could otherwise outlast this one's TTL.
  for (const p of profiles) {
    cold[p]!.push(await timed(p));
    for (let i = 0; i < WARM; i++) warm[p]!.push(await timed(p));
  }
  if (c === 0) memory.push({ moment: 'after requests on both profiles', 'RSS MB': mb(), 'resident models': names() });
}
await idle();
memory.push({ moment: `after ${TTL} s idle again`, 'RSS MB': mb(), 'resident models': names() });
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  `node ${process.version}; ${root}; PARLA_STT_DECODERS=${config.sttDecoders} per profile, preload ${config.sttPreload}; load average ${load}`,
);
console.log(table(memory));
console.log(
  table(
    profiles.map((p) => {
      const w = median(warm[p]!);
      const c = median(cold[p]!);
      return {
        profile: p,
        'warm ms (median)': Math.round(w),
        'first after idle ms (median)': Math.round(c),
        'added ms': Math.round(c - w),
        ratio: `${(c / w).toFixed(2)}x`,
        runs: `${CYCLES} x (1 + ${WARM})`,
      };
    }),
  ),
);
if (process.env.JSON === '1')
  console.log(
    JSON.stringify({
      rss10sMb: memory.find((m) => m.moment === '10 s after start')!['RSS MB'],
      profiles: Object.fromEntries(profiles.map((p) => [p, { warmMs: median(warm[p]!), coldMs: median(cold[p]!) }])),
      load,
    }),
  );
await services.close();
rmSync(dir, { recursive: true, force: true });
