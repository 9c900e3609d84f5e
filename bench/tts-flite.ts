// Flite through the native addon against the `flite` program (issue 32, decision #88), side by
// side in one run, medians of RUNS runs (at least 5). Two nodes run the same code, one with
// PARLA_FLITE_NATIVE=0 (the program: "before"), one with the addon ("after"); they are asked in
// turn, never at once. Per run:
//  1. /tts/generate (wav, 3,000 English characters, aura-prime, Aria = Flite slt) on each node, and
//     the `flite` CLI with the same voice on the same text (the baseline)
//  2. /tts/stream time to first byte (aura-prime, 24 kHz) on each node: the text's first 600
//     characters (the first byte waits for the first sentence only; the rest of a longer stream
//     would only lengthen the run)
//  3. /tts/generate 3,000 characters on aura-lite (Flite kal16 for English) on each node: nothing
//     else gets slower
// The load on this machine is often far above its two cores: each generate row also gives the CPU
// time (every thread and child process of the node, from /proc; the CLI's from this process's
// finished children), which the load does not stretch.
// Run: node --import tsx bench/tts-flite.ts   (PARLA_WORKERS=2 by default; RUNS=7)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median, postDrain, postTimed, startBenchServer, table, timeIt, type BenchServer } from './lib.js';

const RUNS = Math.max(5, Number(process.env.RUNS ?? 7));
const LOAD_BEFORE = loadavg();
// The text of bench/tts.ts.
const SENTENCE = 'The committee reviewed the proposal carefully and agreed to continue the project next quarter. ';
const TEXT = SENTENCE.repeat(40).slice(0, 3000);
const VOICE = 'Aria';
const workers = process.env.PARLA_WORKERS ?? '2';

const program = await startBenchServer({ PARLA_WORKERS: workers, PARLA_FLITE_NATIVE: '0' });
const addon = await startBenchServer({ PARLA_WORKERS: workers });
const loads: number[] = [];
const sampler = setInterval(() => loads.push(loadavg()[0]!), 2000);
const loadRange = () => `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;

/**
 * A request, sent again once if the server closed its kept-alive socket just as it was reused (a
 * node left idle while the other node and the CLI ran: ECONNRESET before any answer).
 */
async function again<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') throw err;
    return call();
  }
}

/**
 * CPU ms (user + system) of a process and all its descendants, living or finished, from /proc: the
 * node's programs run under its spawner helper (src/process/spawner.ts), so they are its
 * grandchildren. 'self': this process's finished children (the CLI) only.
 */
function cpuMs(pid: number | 'self'): number {
  const fields = (p: number | 'self') => {
    const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
  };
  if (pid === 'self') {
    const f = fields('self');
    return (f[13]! + f[14]!) * 10;
  }
  let total = 0;
  try {
    const f = fields(pid);
    total = (f[11]! + f[12]! + f[13]! + f[14]!) * 10;
    for (const task of readdirSync(`/proc/${pid}/task`))
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean))
        total += cpuMs(Number(child));
  } catch {
    // A process that ended between the reads: its time is in its parent's children's time.
  }
  return total;
}

const body = (model: string) => ({ text: TEXT, voice: VOICE, model, format: 'wav' });
const generate = (s: BenchServer, model: string) =>
  again(() => timeIt(() => postDrain(`${s.url}/api/v1/tts/generate`, { 'x-api-key': s.apiKey }, body(model))));
const firstByte = async (s: BenchServer) =>
  (
    await again(() =>
      postTimed(
        `${s.url}/api/v1/tts/stream`,
        { 'x-api-key': s.apiKey },
        { text: TEXT.slice(0, 600), voice: VOICE, model: 'aura-prime', sample_rate: 24000 },
      ),
    )
  ).firstByteMs;

try {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-flite-'));
  // Warm both nodes (every worker, both models).
  for (const s of [program, addon])
    for (let i = 0; i < 2; i++) await Promise.all([generate(s, 'aura-prime'), generate(s, 'aura-lite'), firstByte(s)]);
  const m: Record<string, number[]> = {};
  const add = (k: string, v: number) => (m[k] ??= []).push(v);
  for (let i = 0; i < RUNS; i++) {
    // Alternate which node goes first, so neither always follows the CLI.
    const order = i % 2 === 0 ? [program, addon] : [addon, program];
    for (const s of order) {
      const name = s === addon ? 'addon' : 'program';
      const c0 = cpuMs(s.proc.pid!);
      add(`gen-${name}`, (await generate(s, 'aura-prime')).ms);
      add(`cpu-${name}`, cpuMs(s.proc.pid!) - c0);
    }
    const t = performance.now();
    const c0 = cpuMs('self');
    execFileSync('flite', ['-voice', 'slt', '-t', TEXT, '-o', path.join(dir, 'cli.wav')]);
    add('cli', performance.now() - t);
    add('cpu-cli', cpuMs('self') - c0);
    for (const s of order) add(`ttfb-${s === addon ? 'addon' : 'program'}`, await firstByte(s));
    for (const s of order) add(`lite-${s === addon ? 'addon' : 'program'}`, (await generate(s, 'aura-lite')).ms);
  }
  clearInterval(sampler);
  const md = (k: string) => Math.round(median(m[k]!));
  const rows = [
    {
      benchmark: '/tts/generate 3,000 chars, aura-prime (slt) vs `flite -voice slt` CLI',
      program: md('gen-program'),
      addon: md('gen-addon'),
      cli: md('cli'),
      'program/cli': (median(m['gen-program']!) / median(m.cli!)).toFixed(2),
      'addon/cli': (median(m['gen-addon']!) / median(m.cli!)).toFixed(2),
    },
    {
      benchmark: 'CPU ms of that request (node: all threads and children)',
      program: md('cpu-program'),
      addon: md('cpu-addon'),
      cli: md('cpu-cli'),
      'program/cli': (median(m['cpu-program']!) / median(m['cpu-cli']!)).toFixed(2),
      'addon/cli': (median(m['cpu-addon']!) / median(m['cpu-cli']!)).toFixed(2),
    },
    {
      benchmark: '/tts/stream first byte, aura-prime',
      program: md('ttfb-program'),
      addon: md('ttfb-addon'),
      cli: '-',
      'program/cli': '-',
      'addon/cli': '-',
    },
    {
      benchmark: '/tts/generate 3,000 chars, aura-lite (kal16)',
      program: md('lite-program'),
      addon: md('lite-addon'),
      cli: '-',
      'program/cli': '-',
      'addon/cli': '-',
    },
  ];
  console.log(`Flite: addon vs program, ${new Date().toISOString()}, PARLA_WORKERS=${workers}, ${RUNS} runs, medians (ms)`);
  console.log(`Load average before (1, 5, 15 min): ${LOAD_BEFORE.map((l) => l.toFixed(2)).join(', ')}; during: ${loadRange()}`);
  console.log(table(rows));
  for (const [k, xs] of Object.entries(m)) console.log(`${k}: ${xs.map((x) => x.toFixed(0)).join(' ')}`);
} finally {
  clearInterval(sampler);
  await program.stop();
  await addon.stop();
}
