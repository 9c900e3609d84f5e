// Tells the two speaker formats of sherpa-onnx's diarization apart by their ONNX metadata, and
// refuses a file whose metadata would make sherpa-onnx end the process (it reads each key with
// SHERPA_ONNX_READ_META_DATA, which exits on a missing or non-numeric one; sherpa-onnx/csrc/
// offline-speaker-segmentation-pyannote-model.cc and speaker-embedding-extractor-model.cc). The
// model manager's probe calls this before any native code sees the file, and the serving side calls
// it again before loading (a file changed since its check must not take the server down).

import type { ModelFormat } from './formats.js';

export class SpeakerFormatError extends Error {}

/** The integer keys sherpa-onnx reads from a pyannote segmentation model. */
const SEGMENTATION_KEYS = [
  'sample_rate',
  'window_size',
  'receptive_field_size',
  'receptive_field_shift',
  'num_speakers',
  'powerset_max_classes',
  'num_classes',
] as const;
/** The keys sherpa-onnx reads from a 3D-Speaker or WeSpeaker embedding model (the last two as text). */
const EMBEDDING_INTS = ['output_dim', 'sample_rate', 'normalize_samples'] as const;
const EMBEDDING_STRINGS = ['language', 'framework'] as const;

const isInt = (v: string | undefined) => v !== undefined && /^-?\d+$/.test(v.trim());

/** The speaker format the metadata names, or null when it names none (another kind of model). */
export function speakerFormatOf(meta: Record<string, string>): Extract<ModelFormat, 'speaker-segmentation' | 'speaker-embedding'> | null {
  if ('receptive_field_size' in meta || /^pyannote/i.test(meta.model_type ?? '')) return 'speaker-segmentation';
  if ('framework' in meta || ('output_dim' in meta && !('vocab_size' in meta))) return 'speaker-embedding';
  return null;
}

/** Throws SpeakerFormatError naming what sherpa-onnx would not accept in `meta` of `format`. */
export function checkSpeakerMetadata(
  file: string,
  format: 'speaker-segmentation' | 'speaker-embedding',
  meta: Record<string, string>,
): void {
  const fail = (why: string) => {
    throw new SpeakerFormatError(`${file}: ${why}`);
  };
  if (format === 'speaker-segmentation') {
    const missing = SEGMENTATION_KEYS.filter((k) => !isInt(meta[k]));
    if (missing.length) fail(`a pyannote segmentation model needs the integer metadata ${missing.join(', ')}`);
    // Parla hands the recording over at 16 kHz, the rate pyannote segmentation 3.0 runs at.
    if (Number(meta.sample_rate) !== 16000) fail(`a segmentation model at ${meta.sample_rate} Hz: only 16000 Hz is served`);
    // sherpa-onnx builds the powerset of at most two speakers at once (more ends the process).
    const max = Number(meta.powerset_max_classes);
    if (max < 1 || max > 2) fail(`powerset_max_classes ${max}: sherpa-onnx supports 1 or 2`);
    if (Number(meta.window_size) < 1600 || Number(meta.receptive_field_shift) < 1)
      fail('window_size or receptive_field_shift out of range');
    return;
  }
  const missingInts = EMBEDDING_INTS.filter((k) => !isInt(meta[k]));
  if (missingInts.length) fail(`a speaker embedding model needs the integer metadata ${missingInts.join(', ')}`);
  const missingText = EMBEDDING_STRINGS.filter((k) => meta[k] === undefined);
  if (missingText.length) fail(`a speaker embedding model needs the metadata ${missingText.join(', ')}`);
  if (meta.framework === 'nemo') fail('a NeMo speaker embedding model is not supported yet: only 3D-Speaker and WeSpeaker ones');
  if (meta.framework !== '3d-speaker' && meta.framework !== 'wespeaker')
    fail(`framework "${meta.framework}": sherpa-onnx reads 3d-speaker or wespeaker models`);
  const norm = meta.feature_normalize_type ?? '';
  if (norm !== '' && norm !== 'global-mean') fail(`feature_normalize_type "${norm}": sherpa-onnx knows only global-mean`);
  if (Number(meta.output_dim) < 1) fail(`output_dim ${meta.output_dim}`);
}
