// Engine interfaces. Engines know nothing of HTTP, keys or credits: they turn text into PCM and
// PCM into words, and throw EngineError when they cannot. Product models (aura-*, rapid-*,
// cipher-*, lucid-*) bind to ordered chains of engines in configuration (src/registry/model-registry.ts).

/** Mono 16-bit PCM with its sample rate. */
export interface PcmAudio {
  samples: Int16Array;
  sampleRate: number;
}

export interface WordTiming {
  word: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  confidence?: number;
  /** Index in the synthesized text where the word was read (engines whose events say where). */
  textOffset?: number;
}

export class EngineError extends Error {
  constructor(
    readonly engine: string,
    message: string,
    readonly retryable = true,
    options?: { cause?: unknown },
  ) {
    super(`${engine}: ${message}`, options);
    this.name = 'EngineError';
  }
}

// ---------------------------------------------------------------- text-to-speech

export type SpeechStyle = 'normal' | 'whisper' | 'emphasis';

export interface SynthesisRequest {
  /** Plain text: markup was already parsed out by the TTS service. */
  text: string;
  /** Engine-specific voice id (eSpeak voice+variant such as "en-us+m3", Flite voice such as "slt"). */
  engineVoice: string;
  /** Catalogue language code (e.g. "en-US", "de-DE", "ja"). */
  language: string;
  /** Multiplier on the voice's base rate; 1 = the voice's natural rate. */
  speed: number;
  /** Semitones relative to the voice's base pitch. */
  pitch: number;
  style: SpeechStyle;
  /** Word timings wanted in the result (engines that have them; eSpeak is slower with them). */
  wordTimings?: boolean;
  /**
   * The voice's fixed gain, dB, applied by the engine's output stage before its true-peak limiter
   * (src/audio/dsp/level.ts, src/tts/levels.ts). Absent: 0 (the limiter alone).
   */
  gainDb?: number;
}

export interface SynthesisResult extends PcmAudio {
  words?: WordTiming[];
}

export interface TtsEngine {
  readonly id: string;
  /**
   * The key of a catalogue voice's engine voices this engine reads (default: its id). An engine
   * that wraps another (e.g. the studio finishing) speaks the same voices under another id.
   */
  readonly voiceMapping?: string;
  /** False when the engine cannot run here (e.g. the flite binary is missing); with a reason. */
  status(): { available: boolean; reason?: string };
  /** Catalogue language codes this engine serves. */
  languages(): string[];
  /**
   * Styles the engine renders itself. For any other style the TTS service sends 'normal' and
   * transforms the audio (whisper: LPC resynthesis with noise; emphasis: slower, higher, louder).
   */
  readonly nativeStyles?: readonly SpeechStyle[];
  /**
   * Text longer than this is split at sentences into calls that run in parallel on the pool
   * (default 300). Sized so that one call takes a few hundred milliseconds: splitting a faster
   * call buys little latency, and keeps one request from taking every worker from the others.
   */
  readonly chunkChars?: number;
  /**
   * True when synthesize() with wordTimings returns the engine's own word events (`words`); other
   * engines' words are found by aligning the text to their audio (src/tts/timestamps.ts).
   */
  readonly wordEvents?: boolean;
  /**
   * An engine that picks its own speaker for a catalogue voice (the neural voices: a speaker of the
   * voice's gender, docs/engines.md "Aura voices on a neural model") answers here instead of reading
   * engineVoices[voiceMapping]: the engine voice for that voice and language, or undefined.
   */
  catalogueVoice?(engineVoices: EngineVoices, language: string): string | undefined;
  /** Lifecycle names of the models this engine loads on demand (reported by /health), if any. */
  lifecycleModels?(): string[];
  synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult>;
  /**
   * Optional live synthesis for streaming: the same speech, resampled to outputRate, handed to
   * onAudio in order while it is being synthesized (so a stream's first audio does not wait for
   * the whole sentence). Resolves once all of it was handed over.
   */
  synthesizeLive?(req: SynthesisRequest, outputRate: number, onAudio: (pcm: Int16Array) => void, signal?: AbortSignal): Promise<void>;
  /** Frees what the engine holds outside the pool (Flite's helper process), when the service closes. */
  close?(): void;
}

/** A catalogue voice's engine voice per engine mapping key (e.g. { espeak: "de+m3", flite: "rms" }). */
export type EngineVoices = Readonly<Record<string, string | undefined>>;

/** The engine voice a catalogue voice uses on this engine for the language, or undefined when it has none. */
export function engineVoiceFor(engine: TtsEngine, engineVoices: EngineVoices, language: string): string | undefined {
  if (engine.catalogueVoice) return engine.catalogueVoice(engineVoices, language);
  return engineVoices[engine.voiceMapping ?? engine.id];
}

// ---------------------------------------------------------------- speech-to-text

export interface RecognizedUtterance {
  /** Seconds on the audio's (or stream's) timeline. */
  start: number;
  end: number;
  words: WordTiming[];
}

export interface RecognitionOptions {
  language: string;
  /** Engine settings profile bound to the product model (e.g. "fast", "accurate"). */
  profile: string;
  /** Domain words to boost (prompt / keywords), per request only. */
  keywords?: string[];
  /**
   * The caller gave no language: an engine that can tell (a multilingual Whisper) detects it
   * instead of recognizing `language`, and reports it in RecognitionResult.language.
   */
  detectLanguage?: boolean;
  /**
   * 'translate': English text of speech in any language it serves (OpenAI's /audio/translations).
   * Only an engine whose `translates` is true takes it (a multilingual Whisper); default 'transcribe'.
   */
  task?: 'transcribe' | 'translate';
}

export interface RecognitionResult {
  utterances: RecognizedUtterance[];
  /** Seconds of audio recognized. */
  duration: number;
  /** Id of the engine that served it (e.g. "pocketsphinx", "sherpa:whisper-base.en"), for responses and metadata. */
  engine?: string;
  /** The language the engine detected (only when asked to detect, and it can). */
  language?: string;
  /** What the model was configured to do for this result (an engine that can translate says so). */
  task?: 'transcribe' | 'translate';
}

export interface SttStream {
  /** Feeds 16 kHz mono PCM; resolves when it has been processed. */
  write(pcm16k: Int16Array): Promise<void>;
  /** Best hypothesis of the current utterance so far (interim result), or null. */
  partial(): Promise<RecognizedUtterance | null>;
  /** Ends the current utterance and returns its final words (null when nothing was said). */
  finalizeUtterance(): Promise<RecognizedUtterance | null>;
  /** Returns the stream's decoder to its pool. */
  close(): Promise<void>;
}

export interface SttEngine {
  readonly id: string;
  status(): { available: boolean; reason?: string };
  languages(): string[];
  /**
   * Lifecycle name of the model serving the settings profile (model-lifecycle.ts), when the engine
   * loads it on demand; undefined when it holds its model for good. /health and the real-time info
   * report from it whether the model serving a product model is loaded now.
   */
  lifecycleModel?(profile: string): string | undefined;
  /** It can turn speech in its languages into English text (RecognitionOptions.task 'translate'). */
  readonly translates?: boolean;
  /** Resolves once the engine's recognizers are loaded and warm (engines that load lazily have it). */
  whenReady?(): Promise<void>;
  /**
   * How many recognize() calls with these options run at once (its decoders for them; default 1).
   * A long recording is cut into pieces and this many are recognized at a time (src/stt/long-audio/).
   */
  concurrency?(opts: RecognitionOptions): number;
  /** Batch recognition of 16 kHz mono PCM. */
  recognize(pcm16k: Int16Array, opts: RecognitionOptions, signal?: AbortSignal): Promise<RecognitionResult>;
  /** A streaming recognizer for real time; its timeline starts at 0. */
  openStream(opts: RecognitionOptions): Promise<SttStream>;
}
