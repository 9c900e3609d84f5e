// Where a PocketSphinx decoder's creation goes, step by step with the addon as it is: the acoustic
// model alone (one-word dictionary, no language model), plus the full dictionary, plus the
// language model and its search (a profile's decoder), the same with -mmap yes, and the warm-up
// the pool used to run on every new decoder (decoding a short utterance) against the shared warm
// mean set with setCmn(). Medians of RUNS (3) creations each, time and resident memory added.
// Run: node --import tsx bench/stt-decoder-create.ts
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadNative, MODEL_FILES, type NativeDecoder } from '../src/engines/pocketsphinx/binding.js';
import { decoderArgs } from '../src/engines/pocketsphinx/profiles.js';
import { warmupUtterance } from '../src/engines/pocketsphinx/warmup.js';
import { table } from './lib.js';

const loaded = loadNative();
if ('error' in loaded) throw new Error(loaded.error);
const mod = loaded.native;
const RUNS = Number(process.env.RUNS ?? 3);
const utterance = warmupUtterance();
if (!utterance) throw new Error('the warm-up utterance needs Flite');
const dir = mkdtempSync(path.join(tmpdir(), 'parla-create-'));
const oneWord = path.join(dir, 'one.dict');
writeFileSync(oneWord, 'hello HH AH L OW\n');
const mb = () => process.memoryUsage().rss / 1048576;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: Array<Record<string, string | number>> = [];
const keep: NativeDecoder[] = [];
const hmm = ['-hmm', MODEL_FILES.hmm];
const steps: Array<[string, string[]]> = [
  ['acoustic model, one-word dictionary, keyword search', [...hmm, '-dict', oneWord, '-keyphrase', 'hello']],
  ['+ full dictionary (no language model)', [...hmm, '-dict', MODEL_FILES.dict]],
  ['+ language model and search (profile fast)', decoderArgs('fast')],
  ['profile accurate', decoderArgs('accurate')],
  ['profile fast, -mmap yes', [...decoderArgs('fast'), '-mmap', 'yes']],
];
for (const [step, args] of steps) {
  const ms: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r0 = mb();
    const t0 = performance.now();
    const d = new mod.Decoder(args);
    await d.init();
    ms.push(performance.now() - t0);
    added.push(mb() - r0);
    keep.push(d);
  }
  rows.push({ step, 'create ms': Math.round(median(ms)), 'added RSS MB': Math.round(median(added)) });
}
const warmDecode: number[] = [];
const warmSet: number[] = [];
let mean: Float32Array | null = null;
for (let i = 0; i < RUNS; i++) {
  const d = new mod.Decoder(decoderArgs('fast'));
  await d.init();
  let t0 = performance.now();
  await d.decodeContinuous(utterance);
  d.saveCmn();
  warmDecode.push(performance.now() - t0);
  mean = d.getCmn?.() ?? null;
  const e = new mod.Decoder(decoderArgs('fast'));
  await e.init();
  t0 = performance.now();
  if (mean) e.setCmn?.(mean);
  warmSet.push(performance.now() - t0);
  keep.push(d, e);
}
rows.push({
  step: 'warm-up: decode the utterance (fast), as every new decoder did',
  'create ms': Math.round(median(warmDecode)),
  'added RSS MB': '-',
});
rows.push({
  step: mean ? 'warm-up: setCmn() with the shared mean' : 'warm-up: setCmn() (addon too old: not measured)',
  'create ms': +median(warmSet).toFixed(2),
  'added RSS MB': '-',
});
console.log(
  `node ${process.version}; RUNS=${RUNS}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
console.log(table(rows));
for (const d of keep) d.free?.();
rmSync(dir, { recursive: true, force: true });
