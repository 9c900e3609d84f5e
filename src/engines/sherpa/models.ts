// Finds sherpa-onnx text-to-speech models in the models directory (PARLA_MODELS_DIR/tts/<name>/),
// as their release archives unpack:
// - Piper (VITS): one `<lang>_<REGION>-<name>-<quality>.onnx`, `tokens.txt`, `espeak-ng-data/`.
//   The language comes from the file name (en_US-amy-low.onnx serves en-US).
// - Kokoro: `model.onnx`, `voices.bin`, `tokens.txt`, `espeak-ng-data/` (English: en-US, en-GB),
//   plus `lexicon-*.txt` when present.
// A directory may add `languages.txt` (one catalogue code a line) to state what it serves.
// Only files that exist are reported; nothing is assumed.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export type SherpaTtsKind = 'piper' | 'kokoro';

export interface SherpaTtsModel {
  /** Directory name, used as the model's id. */
  name: string;
  kind: SherpaTtsKind;
  dir: string;
  /** The acoustic model file. */
  model: string;
  tokens: string;
  dataDir: string;
  /** Kokoro's speaker embeddings. */
  voices?: string;
  /** Kokoro lexicons, comma-separated as sherpa-onnx expects. */
  lexicon?: string;
  languages: string[];
}

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

/** The TTS models found under `<modelsDir>/tts`, in name order. */
export function findSherpaTtsModels(modelsDir: string): SherpaTtsModel[] {
  const root = path.join(modelsDir, 'tts');
  if (!isDir(root)) return [];
  const out: SherpaTtsModel[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = path.join(root, name);
    if (!isDir(dir)) continue;
    const model = describe(name, dir);
    if (model) out.push(model);
  }
  return out;
}

function describe(name: string, dir: string): SherpaTtsModel | null {
  const tokens = path.join(dir, 'tokens.txt');
  const dataDir = path.join(dir, 'espeak-ng-data');
  if (!isFile(tokens) || !isDir(dataDir)) return null;
  const files = readdirSync(dir);
  const stated = statedLanguages(dir);
  const voices = path.join(dir, 'voices.bin');
  if (isFile(voices) && isFile(path.join(dir, 'model.onnx'))) {
    const lexicons = files.filter((f) => /^lexicon.*\.txt$/.test(f)).map((f) => path.join(dir, f));
    return {
      name,
      kind: 'kokoro',
      dir,
      model: path.join(dir, 'model.onnx'),
      tokens,
      dataDir,
      voices,
      ...(lexicons.length ? { lexicon: lexicons.join(',') } : {}),
      languages: stated ?? ['en-US', 'en-GB'],
    };
  }
  const onnx = files.filter((f) => f.endsWith('.onnx'));
  if (onnx.length !== 1) return null;
  const lang = /^([a-z]{2,3})_([A-Z]{2})-/.exec(onnx[0]!);
  const languages = stated ?? (lang ? [`${lang[1]}-${lang[2]}`] : []);
  if (!languages.length) return null;
  return { name, kind: 'piper', dir, model: path.join(dir, onnx[0]!), tokens, dataDir, languages };
}

function statedLanguages(dir: string): string[] | null {
  const file = path.join(dir, 'languages.txt');
  if (!isFile(file)) return null;
  const codes = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  return codes.length ? codes : null;
}
