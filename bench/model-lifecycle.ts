// Resident memory and load time of sherpa-onnx recognition models through the model lifecycle:
// the process's RSS before the first load, with the model loaded (after one recognition), and after
// it was unloaded at the end of its idle TTL, per model, in one process (as the server runs them).
// Without installed models it generates the random-weight test models (wiring figures: real models
// are 40 MB to 1.5 GB). Run: node --import tsx bench/model-lifecycle.ts [MODELS_DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ModelLifecycle } from '../src/engines/model-lifecycle.js';
import { createSherpaSttEngines } from '../src/engines/sherpa/sherpa-stt-engine.js';
import { speechLikeSamples } from '../src/models/sample.js';
import { float32ToInt16 } from '../src/audio/pcm.js';
import { generateSherpaModels, installVerifiedSttModels } from '../test/helpers/sherpa-models.js';
import { table } from './lib.js';

const mb = () => Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let modelsDir = process.argv[2];
let scratch: string | null = null;
if (!modelsDir) {
  scratch = mkdtempSync(path.join(tmpdir(), 'parla-bench-models-'));
  const g = generateSherpaModels(path.join(scratch, 'gen'));
  modelsDir = path.join(scratch, 'models');
  await installVerifiedSttModels(modelsDir, [
    { name: 'whisper-gen', from: g.whisper },
    { name: 'nemo-ctc-gen', from: g.nemoCtc, languages: ['en'] },
    { name: 'zipformer2-ctc-gen', from: g.zipformerCtc, languages: ['en'] },
    { name: 'zipformer-transducer-gen', from: g.zipformerTransducer, languages: ['en'] },
  ]);
}

const TTL_MS = 500;
const lc = new ModelLifecycle({ ttlMs: TTL_MS, memoryBudgetMB: 1_000_000, loadWaitMs: 600_000 });
const engines = createSherpaSttEngines(modelsDir, lc, { maxPending: 8 }).filter((e) => e.status().available);
const pcm = float32ToInt16(speechLikeSamples(5));
const rows: Array<Record<string, string | number>> = [];
const start = mb();
for (const e of engines) {
  global.gc?.();
  await sleep(200);
  const before = mb();
  const t0 = performance.now();
  const lease = await lc.acquire(e.model.name);
  const loadMs = performance.now() - t0;
  lease.release();
  const t1 = performance.now();
  await e.recognize(pcm, { language: e.languages()[0]!, profile: 'default' });
  const recognizeMs = performance.now() - t1;
  const loaded = mb();
  while (lc.resident().length > 0) await sleep(50);
  global.gc?.();
  await sleep(300);
  rows.push({
    model: e.id,
    format: e.model.format,
    'load ms': Math.round(loadMs),
    '5 s audio ms': Math.round(recognizeMs),
    'RSS before MB': before,
    'loaded MB': loaded,
    'after unload MB': mb(),
  });
}
console.log(`node ${process.version}, process RSS at start ${start} MB; TTL ${TTL_MS} ms; models in ${modelsDir}`);
console.log(table(rows));
await lc.close();
if (scratch) rmSync(scratch, { recursive: true, force: true });
