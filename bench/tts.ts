// TTS benchmarks (issue 3), side by side in one run, medians of RUNS runs:
//  1. /tts/generate (wav, 3,000 English characters, end to end over HTTP) vs the native espeak-ng CLI
//  2. /tts/stream time to first byte vs the full /tts/generate time, same text
//  3. four segments split by break tags vs the same four synthesized one after another
//  4. two concurrent clients vs one: aggregate characters per second
// Run: node --import tsx bench/tts.ts   (PARLA_WORKERS=2 by default)
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median, startBenchServer, table, timeIt } from './lib.js';

const RUNS = Number(process.env.RUNS ?? 5);
const SENTENCE = 'The committee reviewed the proposal carefully and agreed to continue the project next quarter. ';
const TEXT = SENTENCE.repeat(40).slice(0, 3000);
const SEGMENTS = [0, 1, 2, 3].map((i) => SENTENCE.repeat(3).slice(0, 250 + i));

const server = await startBenchServer({ PARLA_WORKERS: process.env.PARLA_WORKERS ?? '2' });
const headers = { 'x-api-key': server.apiKey, 'content-type': 'application/json' };
const post = (pathName: string, body: object) => fetch(`${server.url}${pathName}`, { method: 'POST', headers, body: JSON.stringify(body) });
const generate = async (text: string, model = 'aura-lite') => {
  const res = await post('/api/v1/tts/generate', { text, voice: 'Aria', model, format: 'wav' });
  if (!res.ok) throw new Error(await res.text());
  await res.arrayBuffer();
};

try {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-tts-'));
  await generate('Warm up the engines.');
  await generate('Warm up the engines.', 'aura-prime');

  const rows: Array<Record<string, string | number>> = [];
  for (const model of ['aura-lite', 'aura-prime']) {
    const parla: number[] = [];
    const cli: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      parla.push((await timeIt(() => generate(TEXT, model))).ms);
      const t = performance.now();
      execFileSync('espeak-ng', ['-v', 'en-us', '-w', path.join(dir, 'cli.wav'), TEXT]);
      cli.push(performance.now() - t);
    }
    rows.push({ benchmark: `generate 3,000 chars (${model}) vs espeak-ng CLI`, parla_ms: median(parla), baseline_ms: median(cli), ratio: median(parla) / median(cli), goal: '<= 3x' });
  }

  const ttfb: number[] = [];
  const full: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const res = await post('/api/v1/tts/stream', { text: TEXT, voice: 'Aria', model: 'aura-lite', sample_rate: 24000 });
    const reader = res.body!.getReader();
    await reader.read();
    ttfb.push(performance.now() - t);
    while (!(await reader.read()).done);
    full.push((await timeIt(() => generate(TEXT))).ms);
  }
  rows.push({ benchmark: 'stream time to first byte vs full generate (3,000 chars)', parla_ms: median(ttfb), baseline_ms: median(full), ratio: median(ttfb) / median(full), goal: '<= 0.10' });

  const withBreaks = SEGMENTS.join('<break time="100ms"/>');
  const par: number[] = [];
  const seq: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    par.push((await timeIt(() => generate(withBreaks))).ms);
    seq.push((await timeIt(async () => { for (const s of SEGMENTS) await generate(s); })).ms);
  }
  rows.push({ benchmark: '4 segments with break tags vs one after another', parla_ms: median(par), baseline_ms: median(seq), ratio: median(par) / median(seq), goal: '<= 0.65' });

  const one: number[] = [];
  const two: number[] = [];
  const chars = 1000;
  const part = TEXT.slice(0, chars);
  for (let i = 0; i < RUNS; i++) {
    one.push(chars / ((await timeIt(() => generate(part))).ms / 1000));
    two.push((2 * chars) / ((await timeIt(() => Promise.all([generate(part), generate(part)]))).ms / 1000));
  }
  rows.push({ benchmark: 'two concurrent clients vs one (chars/s)', parla_ms: median(two), baseline_ms: median(one), ratio: median(two) / median(one), goal: '>= 1.6' });

  console.log(`TTS benchmarks, ${new Date().toISOString()}, ${RUNS} runs each, medians (the "ms" columns of the last row are chars/s)\n`);
  console.log(table(rows));
} finally {
  await server.stop();
}
