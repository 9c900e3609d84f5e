// Writes small random-weight sherpa-onnx models of every format the model manager supports, with
// the generators in test/fixtures/sherpa-models (Debian's python3-onnx; scripts/setup.sh installs it
// with the test dependencies). The models load in sherpa-onnx and run; their output is noise.

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { repoPath } from './root.js';

const GENERATORS = repoPath('test', 'fixtures', 'sherpa-models');
const ESPEAK_DATA = ['/usr/lib/x86_64-linux-gnu/espeak-ng-data', '/usr/lib/aarch64-linux-gnu/espeak-ng-data', '/usr/share/espeak-ng-data'];

export interface GeneratedModels {
  whisper: string;
  nemoCtc: string;
  zipformerCtc: string;
  zipformerTransducer: string;
  piper: string;
  vitsLexicon: string;
  kokoro: string;
}

/** The interpreter that has the onnx module: Debian's python3 unless PARLA_TEST_PYTHON names one. */
export function testPython(): string {
  const candidates = [process.env.PARLA_TEST_PYTHON, '/usr/bin/python3', 'python3'].filter((p): p is string => !!p);
  for (const p of candidates) {
    try {
      execFileSync(p, ['-c', 'import onnx, numpy'], { stdio: 'ignore' });
      return p;
    } catch {
      // try the next one
    }
  }
  throw new Error(
    'no python3 with the onnx and numpy modules: install python3-onnx and python3-numpy (PARLA_SETUP_TEST_DEPS=1 npm run setup)',
  );
}

/**
 * The models, generated into `outDir`; or, under scripts/run-tests.mjs, generated once per run into
 * its shared folder (PARLA_TEST_SHARED_DIR) and shared by every file that asks: they are read-only
 * to the tests (copied or packed, never written), and generating them takes seconds of Python.
 * Files running at once may both generate; the first to rename its folder into place wins.
 */
export function generateSherpaModels(outDir: string): GeneratedModels {
  const shared = process.env.PARLA_TEST_SHARED_DIR;
  if (!shared) return generateInto(outDir);
  const dir = path.join(shared, 'sherpa-models');
  if (!existsSync(dir)) {
    const staging = `${dir}.${process.pid}`;
    generateInto(staging);
    try {
      renameSync(staging, dir);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another file's copy is in place
    }
  }
  return modelPaths(dir);
}

function modelPaths(outDir: string): GeneratedModels {
  return {
    whisper: path.join(outDir, 'whisper'),
    nemoCtc: path.join(outDir, 'nemo-ctc'),
    zipformerCtc: path.join(outDir, 'zipformer2-ctc'),
    zipformerTransducer: path.join(outDir, 'zipformer-transducer'),
    piper: path.join(outDir, 'piper'),
    vitsLexicon: path.join(outDir, 'vits-lexicon'),
    kokoro: path.join(outDir, 'kokoro'),
  };
}

function generateInto(outDir: string): GeneratedModels {
  const py = testPython();
  const run = (script: string, ...args: string[]) =>
    execFileSync(py, [path.join(GENERATORS, script), ...args], { cwd: GENERATORS, stdio: 'ignore' });
  const out = modelPaths(outDir);
  run('gen_whisper.py', out.whisper);
  run('gen_nemo_ctc.py', out.nemoCtc);
  run('gen_zipformer2_streaming.py', out.zipformerCtc, 'ctc');
  run('gen_zipformer2_streaming.py', out.zipformerTransducer, 'transducer');
  run('gen_vits.py', out.piper, 'piper');
  run('gen_vits.py', out.vitsLexicon, 'lexicon');
  run('gen_kokoro.py', out.kokoro);
  copyEspeakSubset(path.join(out.piper, 'espeak-ng-data'));
  copyEspeakSubset(path.join(out.kokoro, 'espeak-ng-data'));
  return out;
}

/** The espeak-ng-data files the en-us Piper and Kokoro frontends need (about 0.8 MB), from Debian's espeak-ng-data. */
export function copyEspeakSubset(dest: string): void {
  const src = ESPEAK_DATA.find((d) => existsSync(path.join(d, 'phontab')));
  if (!src) throw new Error(`no espeak-ng-data in ${ESPEAK_DATA.join(', ')}: install espeak-ng-data`);
  mkdirSync(path.join(dest, 'lang', 'gmw'), { recursive: true });
  for (const f of ['phontab', 'phonindex', 'phondata', 'intonations', 'en_dict']) copyFileSync(path.join(src, f), path.join(dest, f));
  copyFileSync(path.join(src, 'lang', 'gmw', 'en-US'), path.join(dest, 'lang', 'gmw', 'en-US'));
}

/**
 * Installs generated recognition models under `<modelsDir>/stt/<name>/` and runs the manager's
 * loading check on each (`parla models verify`, in a child process), so they are recorded as
 * verified exactly as a pulled model is. `languages` is written to languages.txt first.
 */
export async function installVerifiedSttModels(
  modelsDir: string,
  wanted: Array<{ name: string; from: string; languages?: string[] }>,
): Promise<void> {
  return installVerifiedModels(modelsDir, 'stt', wanted);
}

/** As installVerifiedSttModels, for voice models (`<modelsDir>/tts/<name>/`); `speakers` is written to speakers.txt. */
export async function installVerifiedTtsModels(
  modelsDir: string,
  wanted: Array<{ name: string; from: string; languages?: string[]; speakers?: string }>,
): Promise<void> {
  const { writeFileSync } = await import('node:fs');
  await installVerifiedModels(modelsDir, 'tts', wanted, (w, dir) => {
    if (w.speakers !== undefined) writeFileSync(path.join(dir, 'speakers.txt'), w.speakers);
  });
}

async function installVerifiedModels<W extends { name: string; from: string; languages?: string[] }>(
  modelsDir: string,
  kind: 'stt' | 'tts',
  wanted: W[],
  extra?: (w: W, dir: string) => void,
): Promise<void> {
  const { cpSync, writeFileSync } = await import('node:fs');
  const { verifyModel } = await import('../../src/models/pull.js');
  for (const w of wanted) {
    const dir = path.join(modelsDir, kind, w.name);
    mkdirSync(path.dirname(dir), { recursive: true });
    cpSync(w.from, dir, { recursive: true });
    if (w.languages) writeFileSync(path.join(dir, 'languages.txt'), `${w.languages.join('\n')}\n`);
    extra?.(w, dir);
  }
  const records = await Promise.all(wanted.map((w) => verifyModel(modelsDir, w.name)));
  const failed = records.filter((r) => r.status !== 'ok');
  if (failed.length)
    throw new Error(`generated models failed their loading check: ${failed.map((r) => `${r.name}: ${r.reason}`).join('; ')}`);
}
