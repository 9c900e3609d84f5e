// STT benchmarks (issue 4), side by side in one run, medians of RUNS runs:
//  1. /stt/transcribe end to end on the LibriVox recordings of pocketsphinx-testdata and on a 60 s
//     file vs `pocketsphinx_continuous -infile` on the same 16 kHz audio: time and word error rate
//  2. two concurrent uploads vs one: throughput
// Run: node --import tsx bench/stt.ts
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { median, startBenchServer, table, timeIt } from './lib.js';
import { librivox, soxConcat, wordErrorRate } from '../test/helpers/speech.js';
import { multipart } from '../test/helpers/multipart.js';

const RUNS = Number(process.env.RUNS ?? 5);
const server = await startBenchServer({ PARLA_STT_DECODERS: '2' });

async function transcribe(file: string, model = 'cipher-max'): Promise<string> {
  const { body, contentType } = await multipart(readFileSync(file), { model, smart_format: 'false', punctuate: 'false' });
  const res = await fetch(`${server.url}/api/v1/stt/transcribe`, { method: 'POST', headers: { 'x-api-key': server.apiKey, 'content-type': contentType }, body });
  if (!res.ok) throw new Error(await res.text());
  return ((await res.json()) as { text: string }).text;
}

function cli(file: string): string {
  const out = execFileSync('pocketsphinx_continuous', ['-infile', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return out.trim().split('\n').join(' ');
}

try {
  const files = librivox();
  const sixty = soxConcat(Array.from({ length: 9 }, () => files.map((f) => f.file)).flat().slice(0, 9), 0.3);
  await transcribe(files[0]!.file);
  const rows: Array<Record<string, string | number>> = [];
  for (const [name, set] of [['LibriVox (5 files, 33 s)', files.map((f) => f.file)], ['60 s file', [sixty]]] as const) {
    const parla: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      parla.push((await timeIt(async () => { for (const f of set) await transcribe(f); })).ms);
      base.push((await timeIt(async () => { for (const f of set) cli(f); })).ms);
    }
    rows.push({ benchmark: `${name}: /stt/transcribe vs pocketsphinx_continuous`, parla: median(parla), baseline: median(base), ratio: median(parla) / median(base), goal: '<= 1.0' });
  }
  let pe = 0;
  let ce = 0;
  let n = 0;
  for (const f of files) {
    const words = f.reference.split(/\s+/).length;
    pe += wordErrorRate(f.reference, await transcribe(f.file)) * words;
    ce += wordErrorRate(f.reference, cli(f.file)) * words;
    n += words;
  }
  rows.push({ benchmark: 'LibriVox word error rate (%)', parla: (100 * pe) / n, baseline: (100 * ce) / n, ratio: pe / Math.max(ce, 1e-9), goal: 'parla <= CLI' });

  const one: number[] = [];
  const two: number[] = [];
  const f = files[0]!.file;
  for (let i = 0; i < RUNS; i++) {
    one.push(1000 / (await timeIt(() => transcribe(f))).ms);
    two.push(2000 / (await timeIt(() => Promise.all([transcribe(f), transcribe(f)]))).ms);
  }
  rows.push({ benchmark: 'two concurrent uploads vs one (files/s)', parla: median(two), baseline: median(one), ratio: median(two) / median(one), goal: '>= 1.6' });
  console.log(`STT benchmarks, ${new Date().toISOString()}, ${RUNS} runs each, medians (times in ms)\n`);
  console.log(table(rows));
} finally {
  await server.stop();
}
