// The STT service: batch transcription and the admission of real-time streams, for any edge (the
// native routes and WebSocket today, the compatible dialects and the job queue next). A plain
// request, the caller's AuthContext and an AbortSignal in; a transcript and what was charged out.
// Batch: check the model and language against the registry -> decode (worker) -> price and hold
// credits -> recognize -> post-process (format, diarize) -> settle once. Real time: the same
// checks, admission and prices, then a hold that the stream grows as audio arrives.

import { redactTranscript } from './redact.js';
import { asTenant } from '../domain/tenant.js';
import type { AuthContext } from '../accounts/auth-context.js';
import { requireFeature } from '../accounts/auth-context.js';
import type { Billing } from '../accounts/billing.js';
import { billableSeconds } from '../accounts/pricing.js';
import type { Config } from '../config.js';
import type { RecognitionResult } from '../engines/engine.js';
import { ApiError } from '../errors.js';
import type { Limiter } from '../limits/limiter.js';
import { engineFamily, STT_MODELS, type ModelRegistry, type SttEndpoint, type SttModel } from '../registry/model-registry.js';
import type { WorkerPool } from '../workers/pool.js';
import { AudioDecodeError } from '../audio/decode.js';
import { DecodeTooLongError, type DecoderProcesses } from '../audio/decoder/host.js';
import { REFERENCE_SECONDS, type SttRequest } from './request.js';
import { recognizeRecording } from './long-audio/recognize-recording.js';
import type { CutRules } from './long-audio/plan.js';
import { openLiveStream, type LiveRequest, type LiveStream } from './open-live.js';

export { LIVE_SLOT_RENEW_MS, type LiveRequest, type LiveStream } from './open-live.js';

import { applySpeakers, buildTranscript, diarizationSpans, type Transcript } from './transcript.js';
import type { SpeakerDiarizer } from '../engines/sherpa/speaker-models.js';

export interface TranscribeRequest {
  requestId: string;
  /** Which endpoint (and so which models) the request came to. */
  endpoint: SttEndpoint;
  options: SttRequest;
  /** The uploaded file's bytes (any supported format); null or empty is MISSING_FILE. */
  audio: Uint8Array | null;
  /** 'translate': English text (OpenAI's /audio/translations); the model's engine must translate. */
  task?: 'transcribe' | 'translate';
  /** The credit hold's id (jobs name theirs `<job id>:<attempt>` so a successor can release a dead run's hold). */
  holdId?: string;
  /** Told the audio's length once it is decoded (jobs estimate their progress from it). */
  onDecoded?: (seconds: number) => void;
  /**
   * Told the fraction (0..1) of the audio recognized so far: after each piece of a long recording
   * (src/stt/long-audio/), once at the end of a short one. For the job runner's progress.
   */
  onProgress?: (fraction: number) => void;
  /**
   * Called once the work is done, right before its credits are settled; a rejection releases the
   * hold instead (nothing billed). A job's runner claims the right to bill here, so a cancel that
   * won the race is never charged (decision #35).
   */
  beforeSettle?: () => Promise<void>;
  /**
   * The client's own say in cutting the recording (OpenAI's chunking_strategy and stream=true): its
   * cutting rules, and `onText` told the text of each run of pieces as soon as it is recognized.
   * Asking for either cuts a recording longer than a piece, whatever PARLA_STT_LONG_SECONDS says.
   */
  cut?: { rules?: CutRules; onText?: (text: string) => void };
  /**
   * Known speakers' names and voice samples (OpenAI's known_speaker_references, decision #50): with
   * diarization, a speaker whose voice matches one is named. `field` names the samples in errors.
   */
  knownSpeakers?: { field: string; speakers: Array<{ name: string; audio: Uint8Array }> };
}

export interface Transcription {
  transcript: Transcript;
  model: SttModel;
  provider: 'cipher' | 'lucid';
  /** The language recognized: the one asked for, or the one the engine detected when none was given. */
  language: string;
  /** Id of the engine that served it (e.g. "pocketsphinx", "sherpa:whisper-base.en"). */
  engine: string;
  /** What the engine did: transcribe, or translate into English (as the engine reports it). */
  task: 'transcribe' | 'translate';
  /** Seconds of audio. */
  duration: number;
  credits: number;
  /** The balance after settling. */
  balance: number;
}

export interface SttServiceDeps {
  config: Config;
  registry: ModelRegistry;
  pool: WorkerPool;
  /** Decodes uploads in processes of their own (src/audio/decoder/, decision #42). */
  decoder: DecoderProcesses;
  billing: Billing;
  limiter: Limiter;
  /** Told the audio length and the wall time of each recognition (metrics). */
  onRecognition?: (audioSeconds: number, workSeconds: number, engineId: string) => void;
  /** Told how many pieces a recording was recognized in (1: one pass; metrics). */
  onPieces?: (pieces: number, vad?: 'silero' | 'webrtc') => void;
  /** The installed speaker models (decision #91), or null: diarization by the built-in clustering. */
  speakers?: SpeakerDiarizer | null;
  /** Told who diarized each recording and how (metrics). */
  onDiarization?: (by: 'sherpa-onnx' | 'builtin', method: 'segmentation' | 'embeddings' | 'features') => void;
}

export class SttService {
  constructor(private readonly d: SttServiceDeps) {}

  /** The feature check, made first (before an upload is read or a stream's parameters are). */
  checkAccess(auth: AuthContext, mode: 'batch' | 'live'): void {
    requireFeature(auth, mode === 'batch' ? 'stt' : 'stt_realtime');
  }

  /** The product models whose engine here translates into English (task 'translate'), in list order. */
  translatingModels(): SttModel[] {
    return this.d.registry.sttTranslatingModels();
  }

  /**
   * The rules a recognition request meets before any work: the feature, the model for the
   * endpoint, diarization allowed, the language, an engine bound to the model. One helper for the
   * batch endpoints (transcribe), a job when it is made and when it runs (src/jobs/).
   */
  checkRequest(auth: AuthContext, o: SttRequest, endpoint: SttEndpoint) {
    const { registry } = this.d;
    requireFeature(auth, 'stt');
    const model = registry.checkSttModel(o.model, endpoint);
    if (o.diarize) requireFeature(auth, 'diarization');
    const language = registry.resolveSttLanguage(model, o.language);
    const binding = registry.requireSttBinding(model);
    return { model, language, binding };
  }

  /**
   * 402 before an upload is read when the balance cannot pay one second of `model` (or, the model
   * not known yet, of the cheapest one): a key without credits would otherwise make the node
   * receive and parse 25 MB per request only to refuse it (decision #58). The decode's own cap
   * (decodePaid) still bounds what a positive balance buys.
   */
  async checkBalanceBeforeUpload(auth: AuthContext, model?: SttModel): Promise<void> {
    const rate = model ? this.d.registry.sttRate(model) : Math.min(...STT_MODELS.map((m) => this.d.registry.sttRate(m)));
    const balance = await this.d.billing.balance(auth);
    if (Math.floor(balance / rate) < 1) throw insufficient(auth, model ?? 'the cheapest model', rate, balance, 1);
  }

  /** Transcribes as `auth`'s account: its decode and pool tasks wait in that account's turn (decision #58). */
  transcribe(auth: AuthContext, req: TranscribeRequest, signal?: AbortSignal): Promise<Transcription> {
    return asTenant(auth.account.id, () => this.transcribeAsTenant(auth, req, signal));
  }

  private async transcribeAsTenant(auth: AuthContext, req: TranscribeRequest, signal?: AbortSignal): Promise<Transcription> {
    const { registry, pool, billing } = this.d;
    const o = req.options;
    const { model, language, binding } = this.checkRequest(auth, o, req.endpoint);
    // No language given: an engine that can tell (a multilingual Whisper) detects it and says so.
    const detectLanguage = o.language === undefined || o.language.trim() === '';
    const task = req.task ?? 'transcribe';
    if (task === 'translate' && !binding.engine.translates) {
      throw new ApiError('INVALID_REQUEST', {
        message: `${model} cannot translate here: its engine (${binding.engine.id}) recognizes speech in its own language only.`,
        details: { field: 'model', provided: model },
      });
    }
    if (!req.audio || req.audio.length === 0) throw new ApiError('MISSING_FILE');
    // The samples first: a bad one is refused before the recording is decoded or anything held.
    const references = o.diarize && req.knownSpeakers ? await this.decodeReferences(req.knownSpeakers, signal) : [];

    const pcm = await this.decodePaid(auth, model, req.audio, signal);
    const duration = +(pcm.length / 16000).toFixed(3);
    const credits = registry.sttCredits(model, duration);
    req.onDecoded?.(duration);
    let served = { engine: binding.engine.id, language, task: 'transcribe' as 'transcribe' | 'translate' };
    // A streamed transcript's client that leaves is billed the audio whose text went out (decision #49).
    let toldSeconds = 0;
    const told = () =>
      signal?.aborted && toldSeconds > 0
        ? { units: billableSeconds(toldSeconds), characters: 0, credits: registry.sttCredits(model, toldSeconds) }
        : null;
    const { result: transcript, balance } = await billing.run(
      auth,
      { requestId: req.requestId, kind: 'stt', model, credits, characters: 0, ...(req.holdId ? { holdId: req.holdId } : {}) },
      async () => {
        const recognizing = performance.now();
        const recognitionOptions = {
          language,
          profile: binding.profile,
          keywords: o.keywords,
          detectLanguage,
          ...(task === 'translate' ? { task } : {}),
        };
        const { result, pieces, vad } = await recognizeRecording(binding.engine, pcm, recognitionOptions, {
          pool,
          long: this.d.config.sttLong,
          ...(signal ? { signal } : {}),
          ...(req.onProgress ? { onProgress: req.onProgress } : {}),
          ...(req.cut
            ? {
                cut: {
                  ...(req.cut.rules ? { rules: req.cut.rules } : {}),
                  ...(req.cut.onText ? { onPieces: textOf(req.cut.onText, o, (s) => (toldSeconds = s)) } : {}),
                },
              }
            : {}),
        });
        this.d.onPieces?.(pieces, vad);
        served = {
          engine: result.engine ?? binding.engine.id,
          language: detectLanguage && result.language ? result.language : language,
          task: result.task ?? 'transcribe',
        };
        this.d.onRecognition?.(duration, (performance.now() - recognizing) / 1000, binding.engine.id);
        // A recognition cannot be interrupted, but work aborted meanwhile (a canceled job) is not billed.
        signal?.throwIfAborted();
        const transcript = buildTranscript(result.utterances, { smartFormat: o.smartFormat, punctuate: o.punctuate });
        if (o.diarize && transcript.words.length) {
          const spans = diarizationSpans(transcript);
          const { labels, known } = await this.diarize(pcm, spans, references, signal);
          applySpeakers(transcript, spans, labels);
          if (req.knownSpeakers) transcript.speakerNames = known.map((k) => req.knownSpeakers!.speakers[k]?.name);
        }
        await req.beforeSettle?.();
        // After diarization: a redacted run keeps its first word's speaker.
        return {
          result: o.redaction ? redactTranscript(transcript, o.redaction) : transcript,
          used: { units: billableSeconds(duration), characters: 0, credits },
        };
      },
      told,
    );
    return {
      transcript,
      model,
      provider: engineFamily(model),
      language: served.language,
      engine: served.engine,
      task: served.task,
      duration,
      credits,
      balance: balance!,
    };
  }

  /**
   * Speaker labels for the spans: from the installed speaker models when they serve (decision #91),
   * else (none installed, or they cannot serve now: logged by them) from the built-in clustering.
   * Both label the same spans, so every door shows their speakers the same way.
   */
  private async diarize(
    pcm: Int16Array,
    spans: Array<{ start: number; end: number }>,
    references: Int16Array[],
    signal?: AbortSignal,
  ): Promise<{ labels: number[]; known: number[] }> {
    const times = spans.map((s) => ({ start: s.start, end: s.end }));
    const neural = this.d.speakers ? await this.d.speakers.diarize(pcm, times, references, signal) : null;
    this.d.onDiarization?.(neural ? 'sherpa-onnx' : 'builtin', neural?.method ?? 'features');
    return neural ?? this.d.pool.run('stt.diarize', { pcm, spans: times, references });
  }

  /**
   * Known speakers' samples decoded in the bounded decoder processes as uploads are (capped just
   * past their 10 s), each 2-10 s long; any fault is a 400 naming the field, never billed.
   */
  private async decodeReferences(known: NonNullable<TranscribeRequest['knownSpeakers']>, signal?: AbortSignal): Promise<Int16Array[]> {
    const { min, max, slack } = REFERENCE_SECONDS;
    const out: Int16Array[] = [];
    for (const [i, s] of known.speakers.entries()) {
      const refuse = (why: string) =>
        new ApiError('INVALID_PARAMETER', {
          message: `${known.field}[${i}] (${s.name.slice(0, 64)}) ${why}`,
          details: { field: known.field },
        });
      let pcm: Int16Array;
      try {
        pcm = await this.d.decoder.decode(s.audio, max + slack, signal);
      } catch (err) {
        if (err instanceof DecodeTooLongError) throw refuse(`is longer than ${max} seconds.`);
        if (err instanceof AudioDecodeError) throw refuse(`could not be decoded as audio: ${err.message}`);
        throw err;
      }
      if (pcm.length / 16000 < min)
        throw refuse(`is ${(pcm.length / 16000).toFixed(2)} s long; a reference must be ${min} to ${max} seconds.`);
      out.push(pcm);
    }
    return out;
  }

  /**
   * Decodes an upload no further than the balance pays for and the absolute cap allows (decision
   * #36): the balance is read first (402 before any work when it does not pay one second), the
   * decoder refuses a header that declares more (402, or 400 AUDIO_TOO_LONG past the absolute cap)
   * before decoding, and stops decoding the moment the cap is passed.
   */
  private async decodePaid(auth: AuthContext, model: SttModel, audio: Uint8Array, signal?: AbortSignal): Promise<Int16Array> {
    const { registry, billing, decoder, config } = this.d;
    const rate = registry.sttRate(model);
    const maxAudio = config.decode.maxAudioSeconds;
    const balance = await billing.balance(auth);
    const payable = Math.floor(balance / rate);
    if (payable < 1) throw insufficient(auth, model, rate, balance, 1);
    try {
      return await decoder.decode(audio, Math.min(maxAudio, payable), signal);
    } catch (err) {
      if (err instanceof DecodeTooLongError) {
        if (err.seconds > maxAudio) throw audioTooLong(err.seconds, maxAudio, err.declared);
        throw insufficient(auth, model, rate, balance, err.seconds);
      }
      if (err instanceof AudioDecodeError)
        throw new ApiError('INVALID_AUDIO', { message: `The audio could not be decoded: ${err.message}` });
      throw err;
    }
  }

  /**
   * A job's stored upload against the balance and the absolute cap, from its declared length,
   * when the job is created (decision #42): 402 / 400 AUDIO_TOO_LONG then, not when it runs.
   * A file whose container does not say passes here; the runner's decode is capped all the same.
   */
  async checkDeclaredFile(auth: AuthContext, model: SttModel, path: string): Promise<void> {
    const { registry, billing, decoder, config } = this.d;
    const declared = await asTenant(auth.account.id, () => decoder.declaredSecondsOfFile(path));
    if (declared === null) return;
    if (declared > config.decode.maxAudioSeconds) throw audioTooLong(declared, config.decode.maxAudioSeconds, true);
    const rate = registry.sttRate(model);
    const balance = await billing.balance(auth);
    if (Math.ceil(declared) * rate > balance) throw insufficient(auth, model, rate, balance, declared);
  }

  /** Admits a real-time stream (open-live.ts), or throws what to refuse the upgrade with. */
  openLive(auth: AuthContext, req: LiveRequest): Promise<LiveStream> {
    return openLiveStream(this.d, auth, req);
  }
}

function insufficient(auth: AuthContext, model: string, rate: number, balance: number, seconds: number): ApiError {
  const required = Math.max(1, Math.ceil(seconds)) * rate;
  return new ApiError('INSUFFICIENT_CREDITS', {
    message:
      seconds <= 1
        ? `The ${auth.mode} balance is ${balance} credits; ${model} costs ${rate} per second of audio.`
        : `This audio is at least ${Math.ceil(seconds)} s long and costs ${required} credits, but the ${auth.mode} balance is ${balance}.`,
    details: { required, balance },
  });
}

function audioTooLong(seconds: number, max: number, declared: boolean): ApiError {
  return new ApiError('AUDIO_TOO_LONG', {
    message: `The audio ${declared ? 'declares' : 'is at least'} ${Math.round(seconds)} s; one request or job may carry at most ${max} s (PARLA_STT_MAX_AUDIO_SECONDS). Split the recording.`,
    details: { seconds: Math.round(seconds), max_seconds: max },
  });
}

/** A listener for runs of recognized pieces that hears their text, formatted as the request asks, and tells how far the text that went out reaches. */
function textOf(
  onText: (text: string) => void,
  o: SttRequest,
  reached: (seconds: number) => void,
): (joined: RecognitionResult, upToSeconds: number) => void {
  return (joined, upToSeconds) => {
    const text = buildTranscript(joined.utterances, { smartFormat: o.smartFormat, punctuate: o.punctuate }).text;
    if (text === '') return;
    onText(text);
    reached(upToSeconds);
  };
}
