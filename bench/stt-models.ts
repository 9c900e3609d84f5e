// Every installed speech recognition model side by side with PocketSphinx, in one run, on the
// LibriVox recordings of pocketsphinx-testdata (as bench/stt.ts): word error rate, real-time factor
// (recognition time / audio time, one request at a time, the model already loaded) and the
// resident memory the model adds (process RSS once loaded and used, minus RSS before it loaded;
// each model is unloaded again before the next one is measured). The engines run in this process
// exactly as the server runs them (createServices: worker threads, the model lifecycle).
// Run: PARLA_MODELS_DIR=/path/to/models node --import tsx bench/stt-models.ts
// With no verified model installed it says so and exits 0 (nothing to compare).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { decodeWav } from '../src/audio/wav.js';
import { float32ToInt16 } from '../src/audio/pcm.js';
import { resampleFloat32 } from '../src/audio/resample.js';
import { verifiedModels } from '../src/models/store.js';
import type { SttEngine } from '../src/engines/engine.js';
import { librivox, wordErrorRate } from '../test/helpers/speech.js';
import { table } from './lib.js';

const dir = mkdtempSync(path.join(tmpdir(), 'parla-stt-models-'));
const config = loadConfig({
  ...process.env,
  PARLA_DATA_DIR: dir,
  PARLA_MODEL_TTL: '1',
  PARLA_MODEL_MEMORY_MB: '100000',
  PARLA_STT_PRELOAD: 'false',
  PARLA_SEED_DEMO: 'false',
  LOG_LEVEL: 'silent',
});
const installed = verifiedModels(config.modelsDir).filter((m) => m.kind === 'stt');
if (installed.length === 0) {
  console.log(
    `No verified speech recognition model is installed in ${config.modelsDir} (parla models catalog; parla models pull NAME; or set PARLA_MODELS_DIR): nothing to compare with PocketSphinx.`,
  );
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

const mb = () => process.memoryUsage().rss / 1048576;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const services = await createServices(config, pino({ level: 'silent' }) as never);
const lc = services.lifecycle;

const files = librivox().map((f) => {
  const wav = decodeWav(readFileSync(f.file));
  const mono = wav.sampleRate === 16000 ? wav.channels[0]! : resampleFloat32(wav.channels[0]!, wav.sampleRate, 16000);
  return { ...f, pcm: float32ToInt16(mono) };
});
const audioSeconds = files.reduce((a, f) => a + f.pcm.length / 16000, 0);

/** Waits until the lifecycle has unloaded everything (TTL 1 s), so the next model starts from idle. */
async function idle(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (lc.resident().length > 0 && Date.now() < deadline) await sleep(200);
  await sleep(1000);
}

async function measure(label: string, engine: SttEngine, profile: string): Promise<Record<string, string | number>> {
  await idle();
  const before = mb();
  const load0 = performance.now();
  await engine.recognize(files[0]!.pcm.subarray(0, 16000), { language: 'en', profile });
  const firstMs = performance.now() - load0;
  let errors = 0;
  let words = 0;
  const started = performance.now();
  for (const f of files) {
    const res = await engine.recognize(f.pcm, { language: 'en', profile });
    const text = res.utterances.flatMap((u) => u.words.map((w) => w.word)).join(' ');
    const n = f.reference.split(/\s+/).length;
    errors += wordErrorRate(f.reference, text) * n;
    words += n;
  }
  const rtf = (performance.now() - started) / 1000 / audioSeconds;
  return {
    engine: label,
    'WER %': (100 * errors) / words,
    RTF: rtf,
    'added RSS MB': mb() - before,
    'first request ms (load)': Math.round(firstMs),
  };
}

try {
  const rows: Array<Record<string, string | number>> = [];
  const engines = services.registry.sttEngines();
  const ps = engines.find((e) => e.id === 'pocketsphinx');
  if (ps?.status().available) {
    for (const profile of ['fast', 'accurate']) rows.push(await measure(`pocketsphinx (${profile})`, ps, profile));
  }
  for (const m of installed) {
    const engine = engines.find((e) => e.id === `sherpa:${m.name}`);
    if (!engine?.status().available) {
      rows.push({
        engine: `sherpa:${m.name}`,
        'WER %': '-',
        RTF: '-',
        'added RSS MB': '-',
        'first request ms (load)': engine?.status().reason ?? 'not loaded',
      });
      continue;
    }
    if (!engine.languages().some((l) => l === 'en' || l.startsWith('en-'))) {
      rows.push({
        engine: `sherpa:${m.name}`,
        'WER %': '-',
        RTF: '-',
        'added RSS MB': '-',
        'first request ms (load)': `not English (${engine.languages().join(',')})`,
      });
      continue;
    }
    rows.push(await measure(`sherpa:${m.name} (${m.format})`, engine, 'default'));
  }
  console.log(
    `LibriVox: ${files.length} recordings, ${audioSeconds.toFixed(1)} s; ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}; node ${process.version}; models from ${config.modelsDir}`,
  );
  console.log(table(rows));
} finally {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}
