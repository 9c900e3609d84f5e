// TTS benchmarks (issue 3), side by side in one run, medians of RUNS runs (at least 5):
//  1. /tts/generate (wav, 3,000 English characters, end to end over HTTP) vs the native espeak-ng
//     CLI writing the same text to a WAV in the same eSpeak voice (and, for the Flite-backed model,
//     the native flite CLI with the same Flite voice, for context)
//  2. /tts/stream time to first byte vs the full /tts/generate time, same text
//  3. four segments split by break tags vs the same four synthesized one after another (three
//     pairs per run)
//  4. two concurrent clients vs one: aggregate characters per second, each client sending
//     CLIENT_REQUESTS requests back to back, with the CPU cores the server used in each case
//  5. fairness: a one-sentence request while a 3,000-character request is running vs alone
// Run: node --import tsx bench/tts.ts   (PARLA_WORKERS=2 by default; RUNS=5; ONLY=2,4 runs some)
// The load average is sampled during every benchmark: ratios that need both cores are only
// meaningful when the machine is otherwise idle (load < ~1.5 on 2 cores).
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median, postTimed, startBenchServer, table, timeIt } from './lib.js';
import { childrenCpuMs, cpuWithChildrenMs } from './measure/proc.js';
import { espeakCliMs, fliteCliMs, generate as generateOn, prose, SENTENCE, VOICE } from './measure/tts.js';

const RUNS = Math.max(5, Number(process.env.RUNS ?? 5));
const ONLY = process.env.ONLY ? new Set(process.env.ONLY.split(',').map(Number)) : null;
const want = (n: number) => ONLY === null || ONLY.has(n);
// Before anything of ours runs: the load other work puts on the machine (the benchmark itself
// adds up to ~2 on a 2-core machine while it runs).
const LOAD_BEFORE = loadavg();
const TEXT = prose(3000);
const SEGMENTS = [0, 1, 2, 3].map((i) => SENTENCE.repeat(3).slice(0, 250 + i));

const server = await startBenchServer({ PARLA_WORKERS: process.env.PARLA_WORKERS ?? '2' });
const generate = (text: string, model = 'aura-lite') => generateOn(server, text, model);

/** Load average samples (1-minute) taken while a benchmark runs. */
const loads: number[] = [];
const sampler = setInterval(() => loads.push(loadavg()[0]!), 2000);
function loadSince(from: number): string {
  const xs = loads.slice(from);
  if (xs.length === 0) xs.push(loadavg()[0]!);
  return `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
}

/** CPU seconds the server process has used so far (every thread, and its finished children such as Flite). */
const serverCpuSeconds = () => cpuWithChildrenMs(server.proc.pid!) / 1000;
/** CPU time of this process's finished children (the CLIs), ms. */
const childCpuMs = () => childrenCpuMs('self');
const cpuNotes: string[] = [];

try {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-tts-'));
  // Warm every worker (concurrent requests land on distinct idle workers) on both engines.
  const warm = SENTENCE.repeat(3);
  for (let i = 0; i < 2; i++) {
    await Promise.all([generate(warm), generate(warm)]);
    await Promise.all([generate(warm, 'aura-prime'), generate(warm, 'aura-prime')]);
  }

  const rows: Array<Record<string, string | number>> = [];
  const row = (benchmark: string, parla: number, baseline: number, ratio: number, goal: string, met: boolean | null, load: string) =>
    rows.push({ benchmark, parla_ms: parla, baseline_ms: baseline, ratio, goal, met: met === null ? '-' : met ? 'met' : 'not met', load });

  for (const model of want(1) ? ['aura-lite', 'aura-prime'] : []) {
    const mark = loads.length;
    const parla: number[] = [];
    const cli: number[] = [];
    const flite: number[] = [];
    const cpu: number[] = [];
    const cliCpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = serverCpuSeconds();
      parla.push((await timeIt(() => generate(TEXT, model))).ms);
      cpu.push((serverCpuSeconds() - before) * 1000);
      const c0 = childCpuMs();
      cli.push(espeakCliMs(TEXT, dir));
      cliCpu.push(childCpuMs() - c0);
      if (model === 'aura-prime') flite.push(fliteCliMs(TEXT, dir));
    }
    const load = loadSince(mark);
    row(
      `generate 3,000 chars (${model}) vs espeak-ng CLI`,
      median(parla),
      median(cli),
      median(parla) / median(cli),
      '<= 3x',
      median(parla) / median(cli) <= 3,
      load,
    );
    cpuNotes.push(
      `${model}: server CPU per 3,000-char request ${median(cpu).toFixed(0)} ms (all threads and child processes), espeak-ng CLI CPU ${median(cliCpu).toFixed(0)} ms`,
    );
    if (flite.length)
      row(
        `generate 3,000 chars (${model}) vs flite CLI (slt), for context`,
        median(parla),
        median(flite),
        median(parla) / median(flite),
        '-',
        null,
        load,
      );
  }

  if (want(2)) {
    const mark = loads.length;
    const ttfb: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const streamed = await postTimed(
        `${server.url}/api/v1/tts/stream`,
        { 'x-api-key': server.apiKey },
        { text: TEXT, voice: VOICE, model: 'aura-lite', sample_rate: 24000 },
      );
      ttfb.push(streamed.firstByteMs);
      full.push((await timeIt(() => generate(TEXT))).ms);
    }
    const r = median(ttfb) / median(full);
    row('stream first byte vs full generate (3,000 chars, aura-lite)', median(ttfb), median(full), r, '<= 0.10', r <= 0.1, loadSince(mark));
  }

  if (want(3)) {
    const mark = loads.length;
    const withBreaks = SEGMENTS.join('<break time="100ms"/>');
    const par: number[] = [];
    const seq: number[] = [];
    // Three pairs per run: each side is only ~0.1 s, so one pair per run is mostly noise.
    for (let i = 0; i < RUNS * 3; i++) {
      par.push((await timeIt(() => generate(withBreaks))).ms);
      seq.push(
        (
          await timeIt(async () => {
            for (const s of SEGMENTS) await generate(s);
          })
        ).ms,
      );
    }
    const r = median(par) / median(seq);
    row('4 segments with break tags vs one after another (aura-lite)', median(par), median(seq), r, '<= 0.65', r <= 0.65, loadSince(mark));
  }

  // Two clients vs one, each sending CLIENT_REQUESTS requests back to back (a single ~80 ms request
  // would mostly measure when the two happen to overlap): 1,000 characters and, for context, 285.
  const CLIENT_REQUESTS = 4;
  const client = async (part: string) => {
    for (let k = 0; k < CLIENT_REQUESTS; k++) await generate(part);
  };
  const cores: Record<string, { one: number[]; two: number[] }> = {};
  for (const chars of want(4) ? [1000, 285] : []) {
    const mark = loads.length;
    const one: number[] = [];
    const two: number[] = [];
    const used: { one: number[]; two: number[] } = { one: [], two: [] };
    cores[chars] = used;
    const part = TEXT.slice(0, chars);
    for (let i = 0; i < RUNS; i++) {
      let cpu = serverCpuSeconds();
      const r = await timeIt(() => client(part));
      one.push((CLIENT_REQUESTS * chars) / (r.ms / 1000));
      used.one.push((serverCpuSeconds() - cpu) / (r.ms / 1000));
      cpu = serverCpuSeconds();
      const both = await timeIt(() => Promise.all([client(part), client(part)]));
      two.push((2 * CLIENT_REQUESTS * chars) / (both.ms / 1000));
      used.two.push((serverCpuSeconds() - cpu) / (both.ms / 1000));
    }
    const ratio = median(two) / median(one);
    const main = chars === 1000;
    rows.push({
      benchmark: `two concurrent clients vs one, ${chars.toLocaleString('en')} chars each (aura-lite): chars/s${main ? '' : ', for context'}`,
      parla_ms: median(two),
      baseline_ms: median(one),
      ratio,
      goal: main ? '>= 1.6' : '-',
      met: main ? (ratio >= 1.6 ? 'met' : 'not met') : '-',
      load: loadSince(mark),
    });
  }

  if (want(5)) {
    const mark = loads.length;
    const alone: number[] = [];
    const busy: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      alone.push((await timeIt(() => generate(SENTENCE))).ms);
      const long = generate(TEXT);
      await new Promise((r) => setTimeout(r, 100));
      busy.push((await timeIt(() => generate(SENTENCE))).ms);
      await long;
    }
    row(
      'one sentence while a 3,000-char request runs vs alone (aura-lite)',
      median(busy),
      median(alone),
      median(busy) / median(alone),
      '-',
      null,
      loadSince(mark),
    );
  }

  clearInterval(sampler);
  console.log(
    `TTS benchmarks, ${new Date().toISOString()}, PARLA_WORKERS=${process.env.PARLA_WORKERS ?? '2'}, ${RUNS} runs each, medians; load = 1-minute load average (min-max) during the benchmark`,
  );
  console.log(`Load average before the run (1, 5, 15 min): ${LOAD_BEFORE.map((l) => l.toFixed(2)).join(', ')}`);
  console.log('(the "ms" columns of the two-clients rows are characters per second)\n');
  console.log(table(rows));
  for (const note of cpuNotes) console.log(note);
  for (const [chars, c] of Object.entries(cores))
    console.log(
      `Server CPU cores used (median), ${chars} chars: one client ${median(c.one).toFixed(2)}, two clients ${median(c.two).toFixed(2)}`,
    );
} finally {
  clearInterval(sampler);
  await server.stop();
}
