// The model formats the manager recognises, each exercised with a generated model of that format in
// the tests (pulled, loaded, run once). Kokoro means the English v0.19 layout (espeak-ng frontend);
// the multi-language Kokoro v1.0 needs a lexicon and dict folder that are not handled yet. Smart Turn
// is pipecat-ai/smart-turn's v3 ONNX export (input_features [batch, 80, 800] -> probability). The
// speaker formats are what sherpa-onnx's speaker diarization reads: pyannote segmentation 3.0 (who
// speaks in each frame of a 10 s window) and a 3D-Speaker or WeSpeaker embedding extractor (one
// vector per stretch of speech), served by src/engines/sherpa/speaker-models.ts (decision #91).

export const MODEL_FORMATS = [
  'whisper',
  'nemo-ctc',
  'zipformer-transducer',
  'zipformer2-ctc',
  'piper',
  'vits',
  'kokoro',
  'smart-turn',
  'speaker-segmentation',
  'speaker-embedding',
] as const;
export type ModelFormat = (typeof MODEL_FORMATS)[number];
/**
 * A turn model decides when a live speaker is done (src/stt/live/turns.ts), it does not transcribe;
 * a speaker model tells speakers apart for diarization.
 */
export type ModelKind = 'stt' | 'tts' | 'turn' | 'speaker';

export const FORMAT_INFO: Record<ModelFormat, { kind: ModelKind; streaming: boolean; title: string }> = {
  whisper: { kind: 'stt', streaming: false, title: 'Whisper (offline, encoder + decoder)' },
  'nemo-ctc': { kind: 'stt', streaming: false, title: 'NeMo CTC (offline, e.g. Conformer/FastConformer CTC)' },
  'zipformer-transducer': { kind: 'stt', streaming: true, title: 'streaming Zipformer transducer (encoder + decoder + joiner)' },
  'zipformer2-ctc': { kind: 'stt', streaming: true, title: 'streaming Zipformer2 CTC' },
  piper: { kind: 'tts', streaming: false, title: 'Piper VITS voice (espeak-ng phonemes)' },
  vits: { kind: 'tts', streaming: false, title: 'VITS voice with a lexicon' },
  kokoro: { kind: 'tts', streaming: false, title: 'Kokoro' },
  'smart-turn': { kind: 'turn', streaming: false, title: 'Smart Turn v3 end-of-turn model (one ONNX file)' },
  'speaker-segmentation': { kind: 'speaker', streaming: false, title: 'pyannote speaker segmentation 3.0 (diarization)' },
  'speaker-embedding': { kind: 'speaker', streaming: false, title: 'speaker embedding extractor, 3D-Speaker or WeSpeaker (diarization)' },
};

/** Installed model names are folder names: plain, no path separators, no dot-only names. */
export const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
