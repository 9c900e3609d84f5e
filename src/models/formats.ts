// The model formats the manager recognises, each exercised with a generated model of that format in
// the tests (pulled, loaded, run once). Kokoro means the English v0.19 layout (espeak-ng frontend);
// the multi-language Kokoro v1.0 needs a lexicon and dict folder that are not handled yet.

export const MODEL_FORMATS = ['whisper', 'nemo-ctc', 'zipformer-transducer', 'zipformer2-ctc', 'piper', 'vits', 'kokoro'] as const;
export type ModelFormat = (typeof MODEL_FORMATS)[number];
export type ModelKind = 'stt' | 'tts';

export const FORMAT_INFO: Record<ModelFormat, { kind: ModelKind; streaming: boolean; title: string }> = {
  whisper: { kind: 'stt', streaming: false, title: 'Whisper (offline, encoder + decoder)' },
  'nemo-ctc': { kind: 'stt', streaming: false, title: 'NeMo CTC (offline, e.g. Conformer/FastConformer CTC)' },
  'zipformer-transducer': { kind: 'stt', streaming: true, title: 'streaming Zipformer transducer (encoder + decoder + joiner)' },
  'zipformer2-ctc': { kind: 'stt', streaming: true, title: 'streaming Zipformer2 CTC' },
  piper: { kind: 'tts', streaming: false, title: 'Piper VITS voice (espeak-ng phonemes)' },
  vits: { kind: 'tts', streaming: false, title: 'VITS voice with a lexicon' },
  kokoro: { kind: 'tts', streaming: false, title: 'Kokoro' },
};

/** Installed model names are folder names: plain, no path separators, no dot-only names. */
export const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
