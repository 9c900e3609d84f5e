// Memory after a burst of large TTS requests (issue 19, item 11): the compiled server's RSS before,
// its peak during 8 concurrent large /tts/generate requests, and at intervals up to 30 s after; the
// ratio after/before should be at most 1.2 (large buffers must not outlive their request).
// Requests: 5,000-character texts (wav and mp3, eSpeak and Flite) and texts with break tags making
// ~10 minutes of audio each (the per-request cap); BREAK_MINUTES=87 tries the uncapped reproducer.
// Run: node --import tsx bench/memory-burst.ts   (PARLA_WORKERS=2 by default; ROUNDS=1; the server
// gets MALLOC_MMAP_THRESHOLD_=131072 as scripts/start.sh sets it, MALLOC_DEFAULT=1 to leave it out)
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { postDrain, startBenchServer, table } from './lib.js';

const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 1));
const AFTER_S = Number(process.env.AFTER_S ?? 30);
const BREAK_MINUTES = Number(process.env.BREAK_MINUTES ?? 10);
const SENTENCE = 'The committee reviewed the proposal carefully and agreed to continue the project next quarter. ';
const LONG_TEXT = SENTENCE.repeat(60).slice(0, 5000);
// 20 s breaks (the clamp) up to BREAK_MINUTES of audio, a few words between them.
const BREAKS = Math.floor((BREAK_MINUTES * 60) / 20);
// Words between the breaks where they fit in 5,000 characters; else the issue's reproducer, one
// letter and the breaks.
const WORDY = Array.from({ length: BREAKS + 1 }, (_, i) => `Part ${i + 1}.`).join('<break time="20s"/>');
const BREAK_TEXT = WORDY.length <= 5000 ? WORDY : 'a' + '<break time="20s"/>'.repeat(BREAKS);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// As `npm start` runs it (scripts/start.sh); MALLOC_DEFAULT=1 leaves glibc's dynamic threshold.
const mallocEnv: Record<string, string> =
  process.env.MALLOC_DEFAULT === '1' ? {} : { MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072' };
const server = await startBenchServer({ PARLA_WORKERS: process.env.PARLA_WORKERS ?? '2', ...mallocEnv });
const pid = server.proc.pid!;
const headers = { 'x-api-key': server.apiKey };
const url = `${server.url}/api/v1/tts/generate`;
const requests: Array<{ name: string; body: object }> = [
  { name: '5,000 chars wav aura-lite', body: { text: LONG_TEXT, voice: 'Aria', model: 'aura-lite', format: 'wav' } },
  { name: '5,000 chars wav aura-prime', body: { text: LONG_TEXT, voice: 'Aria', model: 'aura-prime', format: 'wav' } },
  { name: '5,000 chars mp3 aura-lite', body: { text: LONG_TEXT, voice: 'Aria', model: 'aura-lite', format: 'mp3' } },
  { name: '5,000 chars flac aura-prime', body: { text: LONG_TEXT, voice: 'Aria', model: 'aura-prime', format: 'flac' } },
  { name: `breaks ${BREAK_MINUTES} min wav aura-lite`, body: { text: BREAK_TEXT, voice: 'Aria', model: 'aura-lite', format: 'wav' } },
  { name: `breaks ${BREAK_MINUTES} min wav aura-prime`, body: { text: BREAK_TEXT, voice: 'Aria', model: 'aura-prime', format: 'wav' } },
  { name: `breaks ${BREAK_MINUTES} min mp3 aura-lite`, body: { text: BREAK_TEXT, voice: 'Aria', model: 'aura-lite', format: 'mp3' } },
  { name: `breaks ${BREAK_MINUTES} min ogg aura-prime`, body: { text: BREAK_TEXT, voice: 'Aria', model: 'aura-prime', format: 'ogg' } },
];

try {
  // Warm: every worker, both engines, every encoder once, small.
  for (const format of ['wav', 'mp3', 'ogg', 'flac']) {
    await Promise.all(
      ['aura-lite', 'aura-prime'].map((model) =>
        postDrain(url, headers, { text: 'Warming up the engines.', voice: 'Aria', model, format }),
      ),
    );
  }
  await sleep(3000);
  const rows: Array<Record<string, string | number>> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
    const started = performance.now();
    const results = await Promise.all(
      requests.map(async (r) => {
        try {
          return { name: r.name, bytes: await postDrain(url, headers, r.body) };
        } catch (err) {
          return { name: r.name, bytes: 0, error: (err as Error).message.slice(0, 120) };
        }
      }),
    );
    const burstS = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(pid));
    for (const r of results) console.log(`  ${r.name}: ${'error' in r ? `error ${r.error}` : `${(r.bytes / 1e6).toFixed(1)} MB`}`);
    const end = rssMb(pid);
    const after: Record<number, number> = {};
    const marks = [5, 10, 20, AFTER_S].filter((s, i, a) => s <= AFTER_S && a.indexOf(s) === i);
    let waited = 0;
    for (const s of marks) {
      await sleep((s - waited) * 1000);
      waited = s;
      after[s] = rssMb(pid);
    }
    const row: Record<string, string | number> = { round, 'before MB': before, 'peak MB': peak, 'at end MB': end, 'burst s': burstS };
    for (const s of marks) row[`+${s} s MB`] = after[s]!;
    row[`+${AFTER_S} s / before`] = after[AFTER_S]! / before;
    rows.push(row);
    console.log(table([row]));
  }
  console.log(
    `\nload average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; PARLA_WORKERS ${process.env.PARLA_WORKERS ?? '2'}; ${JSON.stringify(mallocEnv)}\n`,
  );
  console.log(table(rows));
} finally {
  await server.stop();
}
