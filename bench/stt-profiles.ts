// PocketSphinx settings candidates on the LibriVox test recordings (issue 20, item 6: a max model
// is never less accurate than its fast sibling): each candidate is added as a profile, one decoder
// each, and decodes the five files; word errors and CPU-bound wall time per candidate. Used to set
// the profiles in src/engines/pocketsphinx/profiles.ts. With 71 words, one word is 1.4 points:
// treat differences of a word or two as noise.
// Run: node --import tsx bench/stt-profiles.ts [name ...]   (RUNS=3; default: every candidate)
import { PocketSphinxEngine } from '../src/engines/pocketsphinx/pocketsphinx-engine.js';
import { PROFILES } from '../src/engines/pocketsphinx/profiles.js';
import { warmupUtterance } from '../src/engines/pocketsphinx/warmup.js';
import { table } from './lib.js';
import { engineRuns, librivoxPcm } from './measure/stt.js';

const RUNS = Number(process.env.RUNS ?? 3);
const CANDIDATES: Record<string, Record<string, string>> = {
  ...PROFILES,
  'defaults lw 8': { '-lw': '8' },
  'defaults lw 9': { '-lw': '9' },
  'defaults lw 10': { '-lw': '10' },
  'wide beams': { '-beam': '1e-60', '-wbeam': '1e-40', '-pbeam': '1e-60', '-maxhmmpf': '-1' },
  'wide beams lw 9': { '-beam': '1e-60', '-wbeam': '1e-40', '-pbeam': '1e-60', '-maxhmmpf': '-1', '-lw': '9' },
  'fast lw 9': { ...PROFILES.fast, '-lw': '9' },
  'defaults no fwdflat': { '-fwdflat': 'no' },
  'defaults pl_window 10': { '-pl_window': '10' },
  'no fwdflat lw 5.5': { '-fwdflat': 'no', '-lw': '5.5' },
  'no fwdflat lw 7': { '-fwdflat': 'no', '-lw': '7' },
  'no fwdflat wide beams': { '-fwdflat': 'no', '-beam': '1e-60', '-wbeam': '1e-40', '-pbeam': '1e-60', '-maxhmmpf': '-1' },
  'no fwdflat wip 0.5': { '-fwdflat': 'no', '-wip': '0.5' },
  'no fwdflat wip 0.2': { '-fwdflat': 'no', '-wip': '0.2' },
  'fast lw 5.5': { ...PROFILES.fast, '-lw': '5.5' },
  'fast wip 0.2': { ...PROFILES.fast, '-wip': '0.2' },
  'no fwdflat wip 0.1': { '-fwdflat': 'no', '-wip': '0.1' },
  'no fwdflat wide beams wip 0.2': {
    '-fwdflat': 'no',
    '-beam': '1e-60',
    '-wbeam': '1e-40',
    '-pbeam': '1e-60',
    '-maxhmmpf': '-1',
    '-wip': '0.2',
  },
};
const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(CANDIDATES);
for (const n of names) {
  if (!CANDIDATES[n]) throw new Error(`unknown candidate ${n}`);
  PROFILES[n] = CANDIDATES[n]!;
}

const { files, audioSeconds, words } = librivoxPcm();
const engine = new PocketSphinxEngine({ decodersPerProfile: 1, profiles: names, warmup: warmupUtterance() });
await engine.whenReady();
const rows: Array<Record<string, string | number>> = [];
for (const profile of names) {
  const run = await engineRuns(engine, files, profile, RUNS);
  const errors = Math.round(run.errors);
  const row = {
    profile,
    settings: JSON.stringify(CANDIDATES[profile]),
    'WER (%)': (100 * errors) / words,
    errors: `${errors}/${words}`,
    'time (ms)': run.ms,
    RTF: run.ms / 1000 / audioSeconds,
  };
  console.log(JSON.stringify(row));
  rows.push(row);
}
console.log(
  `\nLibriVox (${files.length} files, ${audioSeconds.toFixed(1)} s, ${words} words), ${new Date().toISOString()}, medians of ${RUNS} runs\n`,
);
console.log(table(rows));
process.exit(0);
