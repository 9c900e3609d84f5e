// Long recordings in parallel (issue 23 item 7), side by side in one run, medians of RUNS runs:
// a recording of 10 minutes or more (the five LibriVox recordings of pocketsphinx-testdata joined
// 0.3 s apart, REPEATS times over) through POST /api/v1/stt/transcribe on two servers alike but
// for PARLA_STT_PARALLEL: off (one decoder, one pass) and on (cut at pauses, pieces on all
// PARLA_STT_DECODERS decoders). Runs alternate between the two so load changes hit both.
// Goals: wall time <= 0.6x one pass, word error rate no worse than one pass.
// Run: node --import tsx bench/stt-parallel.ts   (RUNS default 3, REPEATS default 25 = 655 s,
// MODEL default cipher-max, DECODERS default 2)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { median, postFresh, startBenchServer, table, timeIt, type BenchServer } from './lib.js';
import { librivox, soxConcat, wordErrorRate } from '../test/helpers/speech.js';
import { multipart } from '../test/helpers/multipart.js';

const RUNS = Number(process.env.RUNS ?? 3);
const REPEATS = Number(process.env.REPEATS ?? 25);
const MODEL = process.env.MODEL ?? 'cipher-max';
const DECODERS = process.env.DECODERS ?? '2';

const files = librivox();
const list = Array.from({ length: REPEATS }, () => files.map((f) => f.file)).flat();
const reference = Array.from({ length: REPEATS }, () => files.map((f) => f.reference).join(' ')).join(' ');
const long = soxConcat(list, 0.3);
const seconds = Number(execFileSync('soxi', ['-D', long], { encoding: 'utf8' }));
const upload = await multipart(readFileSync(long), {
  model: MODEL,
  smart_format: 'false',
  punctuate: 'false',
  response_format: 'verbose_json',
});

async function transcribe(server: BenchServer): Promise<{ text: string; segments: number }> {
  const res = await postFresh(
    `${server.url}/api/v1/stt/transcribe`,
    { 'x-api-key': server.apiKey, 'content-type': upload.contentType },
    upload.body,
  );
  if (res.status !== 200) throw new Error(`transcribe: ${res.status} ${res.body.slice(0, 300)}`);
  const body = JSON.parse(res.body) as { text: string; segments: unknown[] };
  return { text: body.text, segments: body.segments.length };
}

const common = { PARLA_STT_DECODERS: DECODERS, PARLA_STT_PRELOAD: 'true' };
const onePass = await startBenchServer({ ...common, PARLA_STT_PARALLEL: 'off' });
const parallel = await startBenchServer({ ...common, PARLA_STT_PARALLEL: 'on' });
try {
  const loads: number[] = [];
  const times = { one: [] as number[], par: [] as number[] };
  const wer = { one: [] as number[], par: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    for (const [name, server] of [
      ['one', onePass],
      ['par', parallel],
    ] as const) {
      loads.push(loadavg()[0]!);
      const { ms, value } = await timeIt(() => transcribe(server));
      times[name].push(ms);
      wer[name].push(wordErrorRate(reference, value.text));
      console.error(
        `run ${i + 1} ${name === 'one' ? 'one pass' : 'parallel'}: ${(ms / 1000).toFixed(1)} s, WER ${(100 * wer[name].at(-1)!).toFixed(1)}%, ${value.segments} segments, load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
  }
  loads.push(loadavg()[0]!);
  const ratio = median(times.par) / median(times.one);
  const werOne = median(wer.one);
  const werPar = median(wer.par);
  const rows = [
    {
      benchmark: `${seconds.toFixed(1)} s recording, ${MODEL}: wall time (ms)`,
      'one pass': Math.round(median(times.one)),
      parallel: Math.round(median(times.par)),
      ratio: ratio.toFixed(2),
      goal: '<= 0.6',
      met: ratio <= 0.6 ? 'met' : 'not met',
    },
    {
      benchmark: `word error rate (%, ${reference.split(/\s+/).length} words)`,
      'one pass': (100 * werOne).toFixed(2),
      parallel: (100 * werPar).toFixed(2),
      ratio: (werPar / Math.max(werOne, 1e-9)).toFixed(3),
      goal: '<= one pass',
      met: werPar <= werOne ? 'met' : 'not met',
    },
  ];
  console.log(
    `Long recordings in parallel, ${new Date().toISOString()}, ${RUNS} runs each, medians, PARLA_STT_DECODERS=${DECODERS}, load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} on ${cpus().length} cores\n`,
  );
  console.log(table(rows));
} finally {
  await onePass.stop();
  await parallel.stop();
}
