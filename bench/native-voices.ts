// Native engine voices through Parla's recognizer: each candidate is a command line of an engine's
// own CLI (flite, espeak-ng, Festival), run on the intelligibility sentences, the audio sent through
// POST /stt/transcribe exactly as bench/intelligibility.ts does. It gives the baselines that
// benchmark compares every catalogue voice with (native Flite slt; best of kal16, rms, awb) and
// chose aura-lite's English engine and settings (issue 20, item 3): word error rate and CLI time
// per candidate, next to the espeak-ng CLI's time.
// Run: node --import tsx bench/native-voices.ts [candidate ...]   (default: the baselines)
//   SENTENCES=n uses the first n sentences; candidates are names from CANDIDATES below.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postFresh, startBenchServer, table } from './lib.js';
import { multipart } from '../test/helpers/multipart.js';
import { words, wordErrorRate } from '../test/helpers/speech.js';
import { SENTENCES as ALL_SENTENCES } from './sentences.js';

const SENTENCES = ALL_SENTENCES.slice(0, Number(process.env.SENTENCES ?? ALL_SENTENCES.length));

/** A candidate writes the sentence in `txt` as a WAV at `wav` (any rate: the service resamples). */
type Candidate = (txt: string, wav: string) => void;

const flite =
  (...args: string[]): Candidate =>
  (txt, wav) =>
    void execFileSync('flite', [...args, '-f', txt, '-o', wav]);
const espeak =
  (...args: string[]): Candidate =>
  (txt, wav) =>
    void execFileSync('espeak-ng', [...args, '-w', wav, '-f', txt]);
const kal16F0 = (mean: number, stddev: number, ...extra: string[]) =>
  flite('-voice', 'kal16', '--setf', `int_f0_target_mean=${mean}`, '--setf', `int_f0_target_stddev=${stddev}`, ...extra);

export const CANDIDATES: Record<string, Candidate> = {
  'flite slt': flite('-voice', 'slt'),
  'flite kal16': flite('-voice', 'kal16'),
  'flite rms': flite('-voice', 'rms'),
  'flite awb': flite('-voice', 'awb'),
  'espeak-ng en-us': espeak('-v', 'en-us'),
  'espeak-ng en-us+f3': espeak('-v', 'en-us+f3'),
  'kal16 F0 150/20': kal16F0(150, 20),
  'kal16 F0 170/24': kal16F0(170, 24),
  'kal16 F0 190/27': kal16F0(190, 27),
  'kal16 F0 210/30': kal16F0(210, 30),
  // awb as the service runs it for a voice with a base pitch (st) and rate: Flite's own F0 shift.
  ...Object.fromEntries(
    [
      [-4, 0.88],
      [-4, 0.95],
      [-4, 1.0],
      [2, 1.05],
      [2, 0.95],
      [1, 1.05],
    ].map(([st, rate]) => [
      `awb ${st! > 0 ? '+' : ''}${st} st x${rate}`,
      flite(
        '-voice',
        'awb',
        '--setf',
        `duration_stretch=${(1 / rate!).toFixed(4)}`,
        '--setf',
        `f0_shift=${(2 ** (st! / 12)).toFixed(5)}`,
        '--setf',
        `int_f0_target_stddev=${(25 * 2 ** (st! / 12)).toFixed(3)}`,
      ),
    ]),
  ),
  'festival hts slt': (txt, wav) => void execFileSync('text2wave', ['-eval', '(voice_cmu_us_slt_arctic_hts)', txt, '-o', wav]),
};

export const BASELINES = ['flite slt', 'flite kal16', 'flite rms', 'flite awb'];

/** Word error rate of one candidate over the sentences, and its summed CLI wall time. */
export async function measureCandidate(
  url: string,
  apiKey: string,
  name: string,
  sentences: readonly string[] = SENTENCES,
): Promise<{ errors: number; words: number; ms: number }> {
  const run = CANDIDATES[name];
  if (!run) throw new Error(`unknown candidate ${name}: ${Object.keys(CANDIDATES).join(', ')}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-native-'));
  let errors = 0;
  let total = 0;
  let ms = 0;
  try {
    for (const [i, text] of sentences.entries()) {
      const txt = path.join(dir, `${i}.txt`);
      const wav = path.join(dir, `${i}.wav`);
      writeFileSync(txt, text);
      const t0 = performance.now();
      run(txt, wav);
      ms += performance.now() - t0;
      const { body, contentType } = await multipart(
        new Uint8Array(readFileSync(wav)),
        { model: process.env.STT_MODEL ?? 'cipher-fast', smart_format: 'false', punctuate: 'false' },
        'speech.wav',
      );
      const res = await postFresh(`${url}/api/v1/stt/transcribe`, { 'x-api-key': apiKey, 'content-type': contentType }, body);
      if (res.status !== 200) throw new Error(`transcribe: ${res.status} ${res.body}`);
      const heard = (JSON.parse(res.body) as { text: string }).text;
      const n = words(text).length;
      errors += Math.round(wordErrorRate(text, heard) * n);
      total += n;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { errors, words: total, ms };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : [...BASELINES, 'espeak-ng en-us'];
  const server = await startBenchServer({ PARLA_STT_DECODERS: '1' });
  try {
    const rows = [];
    for (const name of names) {
      const r = await measureCandidate(server.url, server.apiKey, name);
      const row = {
        candidate: name,
        'WER (%)': (100 * r.errors) / r.words,
        errors: `${r.errors}/${r.words}`,
        'CLI ms, all sentences': Math.round(r.ms),
      };
      console.log(JSON.stringify(row));
      rows.push(row);
    }
    console.log(`\n${SENTENCES.length} sentences, ${new Date().toISOString()}\n`);
    console.log(table(rows));
  } finally {
    await server.stop();
  }
}
