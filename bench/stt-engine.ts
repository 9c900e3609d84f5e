// The PocketSphinx engine alone (no HTTP, no upload decoding) against `pocketsphinx_continuous
// -infile` on the same 16 kHz files: wall time and word error rate per settings profile, medians
// of RUNS runs. Models stay loaded in the engine; the CLI loads them on every run, as it must.
// Run: node --import tsx bench/stt-engine.ts   (RUNS=5 by default)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { decodeWav } from '../src/audio/wav.js';
import { float32ToInt16 } from '../src/audio/pcm.js';
import { PocketSphinxEngine } from '../src/engines/pocketsphinx/pocketsphinx-engine.js';
import { warmupUtterance } from '../src/engines/pocketsphinx/warmup.js';
import { librivox, wordErrorRate } from '../test/helpers/speech.js';
import { median, table, timeIt } from './lib.js';

const RUNS = Number(process.env.RUNS ?? 5);
const files = librivox().map((f) => ({ ...f, pcm: float32ToInt16(decodeWav(readFileSync(f.file)).channels[0]!) }));
const audioSeconds = files.reduce((s, f) => s + f.pcm.length / 16000, 0);
const words = files.reduce((s, f) => s + f.reference.split(/\s+/).length, 0);

function cli(file: string): string {
  const out = execFileSync('pocketsphinx_continuous', ['-infile', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return out.trim().split('\n').join(' ');
}

const engine = new PocketSphinxEngine({ decodersPerProfile: 1, warmup: warmupUtterance() });
await engine.whenReady();
const rows: Array<Record<string, string | number>> = [];

for (const profile of ['fast', 'accurate']) {
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; i < RUNS; i++) {
    let e = 0;
    times.push(
      (
        await timeIt(async () => {
          for (const f of files) {
            const r = await engine.recognize(f.pcm, { language: 'en', profile });
            e +=
              wordErrorRate(f.reference, r.utterances.flatMap((u) => u.words.map((w) => w.word)).join(' ')) *
              f.reference.split(/\s+/).length;
          }
        })
      ).ms,
    );
    errors = e;
  }
  rows.push({
    recognizer: `engine, ${profile} profile`,
    'time (ms)': median(times),
    RTF: median(times) / 1000 / audioSeconds,
    'WER (%)': (100 * errors) / words,
  });
}
{
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; i < RUNS; i++) {
    let e = 0;
    times.push(
      (
        await timeIt(async () => {
          for (const f of files) e += wordErrorRate(f.reference, cli(f.file)) * f.reference.split(/\s+/).length;
        })
      ).ms,
    );
    errors = e;
  }
  rows.push({
    recognizer: 'pocketsphinx_continuous -infile',
    'time (ms)': median(times),
    RTF: median(times) / 1000 / audioSeconds,
    'WER (%)': (100 * errors) / words,
  });
}
console.log(
  `PocketSphinx engine vs CLI, LibriVox (${files.length} files, ${audioSeconds.toFixed(1)} s, ${words} words), ${new Date().toISOString()}, medians of ${RUNS} runs\n`,
);
console.log(table(rows));
