// The PocketSphinx engine alone (no HTTP, no upload decoding) against `pocketsphinx_continuous
// -infile` on the same 16 kHz files: wall time and word error rate per settings profile, medians
// of RUNS runs. Models stay loaded in the engine; the CLI loads them on every run, as it must.
// Run: node --import tsx bench/stt-engine.ts   (RUNS=5 by default)
import { PocketSphinxEngine } from '../src/engines/pocketsphinx/pocketsphinx-engine.js';
import { warmupUtterance } from '../src/engines/pocketsphinx/warmup.js';
import { wordErrorRate } from '../test/helpers/speech.js';
import { median, table, timeIt } from './lib.js';
import { engineRuns, librivoxPcm, pocketsphinxCli } from './measure/stt.js';

const RUNS = Number(process.env.RUNS ?? 5);
const { files, audioSeconds, words } = librivoxPcm();

const engine = new PocketSphinxEngine({ decodersPerProfile: 1, warmup: warmupUtterance() });
await engine.whenReady();
const rows: Array<Record<string, string | number>> = [];

for (const profile of ['fast', 'accurate']) {
  const { ms, errors } = await engineRuns(engine, files, profile, RUNS);
  rows.push({
    recognizer: `engine, ${profile} profile`,
    'time (ms)': ms,
    RTF: ms / 1000 / audioSeconds,
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
          for (const f of files) e += wordErrorRate(f.reference, pocketsphinxCli(f.file)) * f.reference.split(/\s+/).length;
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
