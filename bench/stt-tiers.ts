// Every STT model through POST /stt/transcribe on the LibriVox test recordings (issue 20, item 6):
// what it runs (its engine and settings profile from config/parla.json), word error rate and time,
// medians of RUNS passes over the five files, one request at a time.
// Run: node --import tsx bench/stt-tiers.ts   (RUNS, default 3)
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { median, postFresh, startBenchServer, table, timeIt } from './lib.js';
import { librivox, wordErrorRate } from '../test/helpers/speech.js';
import { multipart } from '../test/helpers/multipart.js';
import { loadConfig } from '../src/config.js';

const RUNS = Number(process.env.RUNS ?? 3);
const files = librivox();
const words = files.reduce((n, f) => n + f.reference.split(/\s+/).length, 0);
const audioSeconds = files.reduce((n, f) => n + (readFileSync(f.file).length - 44) / 32000, 0);
const bindings = loadConfig().product.sttBindings as Record<string, Array<{ engine: string; profile: string }>>;
const server = await startBenchServer({ PARLA_STT_DECODERS: '1' });
try {
  const rows: Array<Record<string, string | number>> = [];
  const loads: number[] = [];
  for (const model of Object.keys(bindings)) {
    const times: number[] = [];
    let errors = 0;
    for (let run = 0; run < RUNS; run++) {
      let e = 0;
      loads.push(loadavg()[0]!);
      const { ms } = await timeIt(async () => {
        for (const f of files) {
          const { body, contentType } = await multipart(readFileSync(f.file), { model, smart_format: 'false', punctuate: 'false' });
          const res = await postFresh(
            `${server.url}/api/v1/stt/transcribe`,
            { 'x-api-key': server.apiKey, 'content-type': contentType },
            body,
          );
          if (res.status !== 200) throw new Error(`${model}: ${res.status} ${res.body}`);
          e += wordErrorRate(f.reference, (JSON.parse(res.body) as { text: string }).text) * f.reference.split(/\s+/).length;
        }
      });
      times.push(ms);
      errors = Math.round(e);
    }
    const row = {
      model,
      runs: bindings[model]!.map((b) => `${b.engine} ${b.profile}`).join(', '),
      'WER (%)': (100 * errors) / words,
      errors: `${errors}/${words}`,
      'time, 5 files (ms)': median(times),
      RTF: median(times) / 1000 / audioSeconds,
    };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  console.log(
    `\nSTT models on LibriVox (${files.length} files, ${audioSeconds.toFixed(1)} s, ${words} words), ${new Date().toISOString()}, medians of ${RUNS}, load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} on ${cpus().length} cores\n`,
  );
  console.log(table(rows));
} finally {
  await server.stop();
}
