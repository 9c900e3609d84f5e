// Idle resident memory of a whole Parla node (createServices with this machine's defaults, SQLite)
// as the model lifecycle manages PocketSphinx's decoders: right after start with the decoders
// preloaded, after PARLA_MODEL_TTL of idleness (decoders freed), after one request per profile
// loads them again (timed: the reload delay the first request after an idle spell pays, decoders
// created and warmed), and after the TTL once more. Run: node --import tsx bench/stt-idle-rss.ts
// (TTL=5 seconds by default; PRELOAD=false starts without decoders).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { table } from './lib.js';

const TTL = Number(process.env.TTL ?? 5);
const dir = mkdtempSync(path.join(tmpdir(), 'parla-idle-rss-'));
const mb = () => Math.round(process.memoryUsage().rss / 1048576);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rows: Array<Record<string, string | number>> = [];
const note = (moment: string, resident: string) => rows.push({ moment, 'RSS MB': mb(), 'resident models': resident || '-' });

const before = mb();
const config = loadConfig({ ...process.env, PARLA_DATA_DIR: dir, PARLA_MODEL_TTL: String(TTL), PARLA_STT_PRELOAD: process.env.PRELOAD ?? 'true', PARLA_SEED_DEMO: 'false', LOG_LEVEL: 'silent' });
const services = await createServices(config, pino({ level: 'silent' }) as never);
const lc = services.lifecycle;
const names = () => lc.resident().map((r) => r.name).join(', ');
rows.push({ moment: 'before createServices', 'RSS MB': before, 'resident models': '-' });
await sleep(500);
note('after start', names());
const idle = async () => {
  while (lc.resident().length > 0) await sleep(200);
  await sleep(500);
};
await idle();
note(`after ${TTL} s idle`, names());
const raw = readFileSync('/usr/share/pocketsphinx/test/data/goforward.raw');
const pcm = new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
const reload: string[] = [];
for (const profile of ['fast', 'accurate']) {
  const t0 = performance.now();
  await services.registry.sttEngines().find((e) => e.id === 'pocketsphinx')!.recognize(pcm, { language: 'en', profile });
  reload.push(`${profile} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
note(`after one request per profile (first request after idle: ${reload.join(', ')})`, names());
await idle();
note(`after ${TTL} s idle again`, names());
console.log(`node ${process.version}; PARLA_STT_DECODERS=${config.sttDecoders} per profile, PARLA_WORKERS=${config.workerThreads}`);
console.log(table(rows));
await services.close();
rmSync(dir, { recursive: true, force: true });
