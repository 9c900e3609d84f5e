// Decides the format of an unpacked model folder from its files and the ONNX metadata sherpa-onnx
// itself reads, as the sherpa-onnx release archives lay them out (e.g. `tiny.en-encoder.int8.onnx`,
// `encoder-epoch-99-avg-1-chunk-16-left-128.onnx`, `en_US-amy-low.onnx`). Where an archive holds a
// float and an int8 copy of a file, the int8 copy is used (a quarter of the memory, near-equal
// accuracy upstream). A folder that matches no supported format is refused with the reason, before
// any native code sees it.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { FORMAT_INFO, type ModelFormat, type ModelKind } from './formats.js';
import { OnnxReadError, readOnnxMetadata } from './onnx-metadata.js';
import { checkSpeakerMetadata, speakerFormatOf, SpeakerFormatError } from './speaker-formats.js';

export class ProbeError extends Error {}

export interface ModelFiles {
  encoder?: string;
  decoder?: string;
  joiner?: string;
  model?: string;
  /** Every sherpa-onnx model has one; a Smart Turn model has none. */
  tokens?: string;
  dataDir?: string;
  voices?: string;
  lexicon?: string;
}

export interface ProbedModel {
  format: ModelFormat;
  kind: ModelKind;
  streaming: boolean;
  /** File names relative to the model folder. */
  files: ModelFiles;
  /** What the folder says it serves (languages.txt, file names, metadata); may be empty. */
  languages: string[];
}

const SHERPA_KEYS = ['decode_chunk_len', 'T', 'vocab_size', 'n_mels', 'sample_rate', 'model_type'];

const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

export function probeModel(dir: string): ProbedModel {
  if (!isDir(dir)) throw new ProbeError(`${dir} is not a folder`);
  // macOS resource-fork twins (`._model.onnx`) are not model files.
  const names = readdirSync(dir)
    .filter((f) => !f.startsWith('._'))
    .sort();
  const onnx = names.filter((f) => f.endsWith('.onnx') && isFile(path.join(dir, f)));
  if (onnx.length === 0) throw new ProbeError('no .onnx file in the archive');
  const tokens = tokensFile(dir, names);
  const stated = statedLanguages(dir);
  const meta = (f: string) => {
    try {
      return readOnnxMetadata(path.join(dir, f));
    } catch (err) {
      throw new ProbeError(
        err instanceof OnnxReadError ? err.message.replace(dir + path.sep, '') : `cannot read ${f}: ${(err as Error).message}`,
      );
    }
  };
  const done = (format: ModelFormat, files: ModelFiles, languages: string[]): ProbedModel => ({
    format,
    kind: FORMAT_INFO[format].kind,
    streaming: FORMAT_INFO[format].streaming,
    files,
    languages: stated ?? languages,
  });

  const espeak = isDir(path.join(dir, 'espeak-ng-data')) ? 'espeak-ng-data' : undefined;
  if (names.includes('voices.bin')) {
    const model = preferInt8(onnx.filter((f) => /^model/.test(f)));
    if (!model || !tokens || !espeak) throw new ProbeError('Kokoro needs model.onnx, voices.bin, tokens.txt and espeak-ng-data/');
    if (Number(meta(model).version ?? '1') >= 2)
      throw new ProbeError('a multi-language Kokoro model (v1.0 and later) is not supported yet: only the English v0.19 layout');
    const lexicons = names.filter((f) => /^lexicon.*\.txt$/.test(f));
    return done(
      'kokoro',
      { model, voices: 'voices.bin', tokens, dataDir: espeak, ...(lexicons.length ? { lexicon: lexicons.join(',') } : {}) },
      ['en-US', 'en-GB'],
    );
  }
  // A speaker model (diarization): one ONNX file (its int8 twin aside) whose metadata is a speaker
  // format's; checked key by key, since sherpa-onnx ends the process on a missing one.
  const lone = preferInt8(onnx);
  const speaker = !tokens && lone ? speakerFormatOf(meta(lone)) : null;
  if (speaker && lone) {
    try {
      checkSpeakerMetadata(lone, speaker, meta(lone));
    } catch (err) {
      throw new ProbeError(err instanceof SpeakerFormatError ? err.message : String(err));
    }
    return done(speaker, { model: lone }, []);
  }
  // One ONNX file and no vocabulary: a turn model, if its interface is Smart Turn's (the loading
  // check reads the graph's inputs and outputs; this reader only skips over the graph).
  // A sherpa-onnx model's metadata names its family; one that does lacks only its tokens.txt.
  if (!tokens && onnx.length === 1 && !SHERPA_KEYS.some((k) => k in meta(onnx[0]!))) return done('smart-turn', { model: onnx[0]! }, []);
  if (!tokens) throw new ProbeError('no tokens.txt in the archive');

  const encoder = preferInt8(onnx.filter((f) => hasRole(f, 'encoder')));
  const decoder = preferInt8(onnx.filter((f) => hasRole(f, 'decoder')));
  const joiner = preferInt8(onnx.filter((f) => hasRole(f, 'joiner')));
  if (encoder && decoder && joiner) {
    const m = meta(encoder);
    if ('decode_chunk_len' in m || 'T' in m) return done('zipformer-transducer', { encoder, decoder, joiner, tokens }, []);
    throw new ProbeError(
      'an offline transducer (e.g. NeMo Parakeet TDT, offline Zipformer) is not supported yet: only streaming Zipformer transducers',
    );
  }
  if (encoder && decoder) {
    const m = meta(encoder);
    if (!('n_mels' in m && 'sot_sequence' in m))
      throw new ProbeError(`${encoder} and ${decoder} without a joiner, but the encoder has no Whisper metadata (n_mels, sot_sequence)`);
    const multilingual = m.is_multilingual === '1';
    const codes = (m.all_language_codes ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    return done('whisper', { encoder, decoder, tokens }, multilingual ? codes : ['en']);
  }

  const single = preferInt8(onnx);
  if (!single || onnx.length > 2) throw new ProbeError(`cannot tell which of ${onnx.join(', ')} is the model`);
  const m = meta(single);
  if ('decode_chunk_len' in m) return done('zipformer2-ctc', { model: single, tokens }, []);
  if ('vocab_size' in m && 'subsampling_factor' in m) return done('nemo-ctc', { model: single, tokens }, []);
  if ('sample_rate' in m && 'n_speakers' in m && 'comment' in m) {
    if (espeak && /piper|coqui|icefall|inflect/i.test(m.comment!))
      return done('piper', { model: single, tokens, dataDir: espeak }, piperLanguages(single, m.voice));
    if (names.includes('lexicon.txt')) return done('vits', { model: single, tokens, lexicon: 'lexicon.txt' }, []);
    throw new ProbeError('a VITS voice needs espeak-ng-data/ (Piper) or lexicon.txt');
  }
  throw new ProbeError(`${single}: no metadata of a supported format (Whisper, NeMo CTC, streaming Zipformer, Piper/VITS, Kokoro)`);
}

/** `tiny.en-encoder.int8.onnx` has the role "encoder"; so has `encoder-epoch-99-avg-1.onnx`. */
function hasRole(file: string, role: string): boolean {
  const stem = file.replace(/(\.int8)?\.onnx$/, '');
  return stem.split(/[-_.]/).includes(role);
}

/** One logical file: its int8 copy if there is one. Null when the names are of several files. */
function preferInt8(files: string[]): string | undefined {
  if (files.length === 1) return files[0];
  if (files.length !== 2) return undefined;
  const int8 = files.find((f) => f.endsWith('.int8.onnx'));
  const plain = files.find((f) => !f.endsWith('.int8.onnx'));
  return int8 && plain && int8.replace(/\.int8\.onnx$/, '.onnx') === plain ? int8 : undefined;
}

function tokensFile(dir: string, names: string[]): string | undefined {
  if (names.includes('tokens.txt')) return 'tokens.txt';
  const others = names.filter((f) => f.endsWith('tokens.txt') && isFile(path.join(dir, f)));
  return others.length === 1 ? others[0] : undefined;
}

/** en_US-amy-low.onnx serves en-US; else the espeak voice in the metadata (en-us -> en-US). */
function piperLanguages(file: string, voice: string | undefined): string[] {
  const lang = /^([a-z]{2,3})_([A-Z]{2})-/.exec(file);
  if (lang) return [`${lang[1]}-${lang[2]}`];
  const v = /^([a-z]{2,3})-([a-z]{2})$/.exec(voice ?? '');
  return v ? [`${v[1]}-${v[2]!.toUpperCase()}`] : [];
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
