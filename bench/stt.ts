// STT benchmarks (issue 4), side by side in one run, medians of RUNS runs:
//  1. /stt/transcribe end to end (upload, decode, recognize; cipher-max: the accurate profile,
//     the library's default search like the CLI's) on the LibriVox recordings of
//     pocketsphinx-testdata and on a 60 s file vs `pocketsphinx_continuous -infile` on the same
//     16 kHz audio: time and word error rate
//  2. two concurrent uploads vs one: throughput
// Run: node --import tsx bench/stt.ts   (RUNS, default 3)
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median, startBenchServer, table, timeIt } from './lib.js';
import { pocketsphinxCli as cli, seconds, transcribe as transcribeOn } from './measure/stt.js';
import { librivox, soxConcat, wordErrorRate } from '../test/helpers/speech.js';

const RUNS = Number(process.env.RUNS ?? 3);
const server = await startBenchServer({ PARLA_STT_DECODERS: '2' });
const transcribe = (file: string) => transcribeOn(server, file);

/** Exactly 60 s of the LibriVox reader: the recordings one after another (0.3 s apart), cut at 60 s. */
function sixtySeconds(files: string[]): string {
  const list: string[] = [];
  for (let total = 0; total < 60; total += seconds(files[list.length % files.length]!) + 0.3) list.push(files[list.length % files.length]!);
  const out = path.join(tmpdir(), `parla-bench-60s-${process.pid}.wav`);
  execFileSync('sox', [soxConcat(list, 0.3), out, 'trim', '0', '60']);
  return out;
}

try {
  const files = librivox();
  const sixty = sixtySeconds(files.map((f) => f.file));
  const libriSeconds = files.reduce((a, f) => a + seconds(f.file), 0);
  await transcribe(files[0]!.file);
  const loads: number[] = [];
  const rows: Array<Record<string, string | number>> = [];
  for (const [name, set] of [
    [`LibriVox (${files.length} files, ${libriSeconds.toFixed(1)} s)`, files.map((f) => f.file)],
    [`${seconds(sixty).toFixed(1)} s file`, [sixty]],
  ] as const) {
    const parla: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      loads.push(loadavg()[0]!);
      parla.push(
        (
          await timeIt(async () => {
            for (const f of set) await transcribe(f);
          })
        ).ms,
      );
      base.push(
        (
          await timeIt(async () => {
            for (const f of set) cli(f);
          })
        ).ms,
      );
    }
    const ratio = median(parla) / median(base);
    rows.push({
      benchmark: `${name}: /stt/transcribe vs pocketsphinx_continuous (ms)`,
      parla: median(parla),
      baseline: median(base),
      ratio,
      goal: '<= 1.0',
      met: ratio <= 1 ? 'met' : 'not met',
    });
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
  rows.push({
    benchmark: 'LibriVox word error rate (%)',
    parla: (100 * pe) / n,
    baseline: (100 * ce) / n,
    ratio: pe / Math.max(ce, 1e-9),
    goal: '<= 1.0',
    met: pe <= ce ? 'met' : 'not met',
  });

  const one: number[] = [];
  const two: number[] = [];
  const f = files[0]!.file;
  for (let i = 0; i < RUNS; i++) {
    loads.push(loadavg()[0]!);
    one.push(1000 / (await timeIt(() => transcribe(f))).ms);
    two.push(2000 / (await timeIt(() => Promise.all([transcribe(f), transcribe(f)]))).ms);
  }
  const gain = median(two) / median(one);
  rows.push({
    benchmark: `two concurrent uploads vs one (files/s, ${seconds(f).toFixed(1)} s file)`,
    parla: median(two),
    baseline: median(one),
    ratio: gain,
    goal: '>= 1.6',
    met: gain >= 1.6 ? 'met' : 'not met',
  });
  console.log(
    `STT benchmarks, ${new Date().toISOString()}, ${RUNS} runs each, medians, load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} on ${cpus().length} cores\n`,
  );
  console.log(table(rows));
} finally {
  await server.stop();
}
