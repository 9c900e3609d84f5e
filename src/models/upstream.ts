// The upstream models `parla models pull NAME` knows: sherpa-onnx's release archives of the formats
// the manager supports (see formats.ts). Nothing here is fetched at build or test time.
// Checksums: sherpa-onnx publishes none next to its release archives, so `sha256` is null unless
// an operator-verified value is known; a pull of such an entry prints the computed checksum and
// records it, and `--sha256` makes the pull check it. Figures are the upstream's own, each with its
// source; a null means no figure is recorded here: none was found (searched 2026-11-25: the Whisper
// paper's per-model table was not reachable; the other Whisper cards' model-index figures were not
// found; the NeMo Conformer-CTC-small card's model-index carries the large model's name, so its
// figures are not taken for the small one; the Zipformer and Piper/Kokoro releases publish none).

import type { ModelFormat, ModelKind } from './formats.js';
import { FORMAT_INFO } from './formats.js';

export interface UpstreamModel {
  name: string;
  kind: ModelKind;
  format: ModelFormat;
  languages: string[];
  /** Download size of the archive in MB, when known. */
  archiveMB: number | null;
  /** Size on disk once unpacked, in MB, when known. */
  unpackedMB: number | null;
  url: string;
  sha256: string | null;
  licence: string;
  /** Upstream accuracy/speed figures, with where they come from. */
  published: { figure: string; source: string } | null;
  /**
   * A single-speaker voice's gender (as heard on the voice's samples), from which it serves the
   * Aura voices of that gender (src/engines/sherpa/speakers.ts). Kokoro's speakers carry theirs in
   * their names.
   */
  speakerGender?: 'female' | 'male';
  notes?: string;
}

const ASR = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/asr-models/';
const TTS = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/tts-models/';
const WHISPER_SIZES = 'file list of huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny.en (same files as the release archive)';

function entry(e: Omit<UpstreamModel, 'kind'>): UpstreamModel {
  return { ...e, kind: FORMAT_INFO[e.format].kind };
}

export const UPSTREAM_MODELS: readonly UpstreamModel[] = [
  entry({
    name: 'whisper-tiny.en',
    format: 'whisper',
    languages: ['en'],
    archiveMB: null,
    unpackedMB: 257,
    url: `${ASR}sherpa-onnx-whisper-tiny.en.tar.bz2`,
    sha256: null,
    licence: 'MIT (OpenAI Whisper)',
    published: {
      figure: '39M parameters; 8.4% WER on LibriSpeech test-clean',
      source:
        'github.com/openai/whisper README, "Available models"; WER: the model-index of https://huggingface.co/openai/whisper-tiny.en (README, "LibriSpeech (clean)" test, 8.437: Hugging Face\'s evaluation, greedy, in the card published under the openai organisation)',
    },
    notes: `unpacked size from the ${WHISPER_SIZES}; the int8 encoder+decoder that Parla loads are 103 MB of it`,
  }),
  entry({
    name: 'whisper-base.en',
    format: 'whisper',
    languages: ['en'],
    archiveMB: null,
    unpackedMB: null,
    url: `${ASR}sherpa-onnx-whisper-base.en.tar.bz2`,
    sha256: null,
    licence: 'MIT (OpenAI Whisper)',
    published: {
      figure: '74M parameters; 12.8% WER on LibriSpeech test-other (its test-clean figure is null there)',
      source:
        'github.com/openai/whisper README, "Available models"; WER: the model-index of https://huggingface.co/openai/whisper-base.en (README, "LibriSpeech (other)" test, 12.804)',
    },
  }),
  entry({
    name: 'whisper-small.en',
    format: 'whisper',
    languages: ['en'],
    archiveMB: null,
    unpackedMB: null,
    url: `${ASR}sherpa-onnx-whisper-small.en.tar.bz2`,
    sha256: null,
    licence: 'MIT (OpenAI Whisper)',
    published: { figure: '244M parameters', source: 'github.com/openai/whisper README, "Available models"' },
  }),
  entry({
    name: 'whisper-tiny',
    format: 'whisper',
    languages: ['multilingual'],
    archiveMB: null,
    unpackedMB: 257,
    url: `${ASR}sherpa-onnx-whisper-tiny.tar.bz2`,
    sha256: null,
    licence: 'MIT (OpenAI Whisper)',
    published: { figure: '39M parameters', source: 'github.com/openai/whisper README, "Available models"' },
    notes:
      '99 languages, detected when a request names none; unpacked size from the file list of huggingface.co/csukuangfj/sherpa-onnx-whisper-tiny',
  }),
  entry({
    name: 'whisper-base',
    format: 'whisper',
    languages: ['multilingual'],
    archiveMB: null,
    unpackedMB: null,
    url: `${ASR}sherpa-onnx-whisper-base.tar.bz2`,
    sha256: null,
    licence: 'MIT (OpenAI Whisper)',
    published: { figure: '74M parameters', source: 'github.com/openai/whisper README, "Available models"' },
    notes: '99 languages, detected when a request names none',
  }),
  entry({
    name: 'nemo-ctc-en-conformer-small',
    format: 'nemo-ctc',
    languages: ['en'],
    archiveMB: null,
    unpackedMB: null,
    url: `${ASR}sherpa-onnx-nemo-ctc-en-conformer-small.tar.bz2`,
    sha256: null,
    licence: 'CC-BY-4.0 (NVIDIA NeMo model)',
    published: null,
  }),
  entry({
    name: 'nemo-fast-conformer-ctc-multi-20k',
    format: 'nemo-ctc',
    languages: ['be', 'de', 'en', 'es', 'fr', 'hr', 'it', 'pl', 'ru', 'uk'],
    archiveMB: null,
    unpackedMB: null,
    url: `${ASR}sherpa-onnx-nemo-fast-conformer-ctc-be-de-en-es-fr-hr-it-pl-ru-uk-20k.tar.bz2`,
    sha256: null,
    licence: 'CC-BY-4.0 (NVIDIA NeMo model)',
    published: null,
  }),
  entry({
    name: 'streaming-zipformer-en-2023-06-26',
    format: 'zipformer-transducer',
    languages: ['en'],
    archiveMB: null,
    unpackedMB: null,
    url: `${ASR}sherpa-onnx-streaming-zipformer-en-2023-06-26.tar.bz2`,
    sha256: null,
    licence: 'Apache-2.0 (k2-fsa icefall)',
    published: null,
    notes: 'streaming: true partial results on the real-time socket',
  }),
  entry({
    name: 'streaming-zipformer-en-20M-2023-02-17',
    format: 'zipformer-transducer',
    languages: ['en'],
    archiveMB: null,
    unpackedMB: null,
    url: `${ASR}sherpa-onnx-streaming-zipformer-en-20M-2023-02-17.tar.bz2`,
    sha256: null,
    licence: 'Apache-2.0 (k2-fsa icefall)',
    published: null,
    notes: 'small (about 20M parameters, as the name says); streaming',
  }),
  entry({
    name: 'streaming-zipformer-ctc-zh-2023-12-13',
    format: 'zipformer2-ctc',
    languages: ['zh'],
    archiveMB: null,
    unpackedMB: null,
    url: `${ASR}sherpa-onnx-streaming-zipformer-ctc-multi-zh-hans-2023-12-13.tar.bz2`,
    sha256: null,
    licence: 'Apache-2.0 (k2-fsa icefall)',
    published: null,
  }),
  entry({
    name: 'vits-piper-en_US-amy-low',
    format: 'piper',
    languages: ['en-US'],
    archiveMB: null,
    unpackedMB: null,
    url: `${TTS}vits-piper-en_US-amy-low.tar.bz2`,
    sha256: null,
    speakerGender: 'female',
    licence: 'see MODEL_CARD in the archive (Piper voice); espeak-ng-data GPL-3.0-or-later',
    published: null,
  }),
  entry({
    name: 'vits-piper-en_US-lessac-medium',
    format: 'piper',
    languages: ['en-US'],
    archiveMB: null,
    unpackedMB: null,
    url: `${TTS}vits-piper-en_US-lessac-medium.tar.bz2`,
    sha256: null,
    speakerGender: 'female',
    licence: 'see MODEL_CARD in the archive (Piper voice); espeak-ng-data GPL-3.0-or-later',
    published: null,
  }),
  entry({
    name: 'vits-piper-de_DE-thorsten-medium',
    format: 'piper',
    languages: ['de-DE'],
    archiveMB: null,
    unpackedMB: null,
    url: `${TTS}vits-piper-de_DE-thorsten-medium.tar.bz2`,
    sha256: null,
    speakerGender: 'male',
    licence: 'see MODEL_CARD in the archive (Piper voice); espeak-ng-data GPL-3.0-or-later',
    published: null,
  }),
  entry({
    name: 'kokoro-en-v0_19',
    format: 'kokoro',
    languages: ['en-US', 'en-GB'],
    archiveMB: null,
    unpackedMB: null,
    url: `${TTS}kokoro-en-v0_19.tar.bz2`,
    sha256: null,
    licence: 'Apache-2.0 (Kokoro-82M); espeak-ng-data GPL-3.0-or-later',
    published: null,
  }),
];

export function upstreamModel(name: string): UpstreamModel | undefined {
  return UPSTREAM_MODELS.find((e) => e.name === name);
}
