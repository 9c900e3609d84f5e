// The STT service: batch transcription and the admission of real-time streams, for any edge (the
// native routes and WebSocket today, the compatible dialects and the job queue next). A plain
// request, the caller's AuthContext and an AbortSignal in; a transcript and what was charged out.
// Batch: check the model and language against the registry -> decode (worker) -> price and hold
// credits -> recognize -> post-process (format, diarize) -> settle once. Real time: the same
// checks, admission and prices, then a hold that the stream grows as audio arrives.

import type { AuthContext } from '../accounts/auth-context.js';
import { requireFeature } from '../accounts/auth-context.js';
import type { Billing, BillableWork } from '../accounts/billing.js';
import { billableSeconds } from '../accounts/pricing.js';
import type { Config } from '../config.js';
import type { SttStream } from '../engines/engine.js';
import { ApiError } from '../errors.js';
import type { Limiter } from '../limits/limiter.js';
import { admitRequest, SLOT_LEASE_MS } from '../limits/admission.js';
import { engineFamily, type ModelRegistry, type SttEndpoint, type SttModel } from '../registry/model-registry.js';
import type { EnginePool } from '../workers/pool.js';
import type { SttRequest } from './request.js';
import { recognizeRecording } from './long-audio/recognize-recording.js';
import { applySpeakers, buildTranscript, diarizationSpans, type Transcript } from './transcript.js';

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

export interface LiveRequest {
  requestId: string;
  model: SttModel;
  language: string | undefined;
  keywords: string[];
  /** How long to wait for a free recognizer (each live stream keeps one) before 503 SERVICE_OVERLOADED. */
  recognizerWaitMs: number;
  /** Seconds of audio prepaid per hold block. */
  holdBlockSeconds: number;
}

/** An admitted real-time stream: its recognizer, its hold and its concurrency slot. */
export interface LiveStream {
  stream: SttStream;
  language: string;
  /** Id of the engine serving the stream (e.g. "pocketsphinx", "sherpa:zipformer-en"). */
  engine: string;
  work: BillableWork;
  /** Whole seconds of audio the hold covers at the start. */
  heldSeconds: number;
  creditsPerSecond: number;
  /** Keeps the slot's lease alive while the stream runs. */
  renewSlot(): void;
  /** Frees the concurrency slot (once the stream has ended). */
  releaseSlot(): Promise<void>;
  /** Gives everything back when the stream never started (the client left during the upgrade). */
  abandon(): Promise<void>;
}

export interface SttServiceDeps {
  config: Config;
  registry: ModelRegistry;
  pool: EnginePool;
  billing: Billing;
  limiter: Limiter;
  /** Told the audio length and the wall time of each recognition (metrics). */
  onRecognition?: (audioSeconds: number, workSeconds: number, engineId: string) => void;
  /** Told how many pieces a recording was recognized in (1: one pass; metrics). */
  onPieces?: (pieces: number) => void;
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

  async transcribe(auth: AuthContext, req: TranscribeRequest, signal?: AbortSignal): Promise<Transcription> {
    const { registry, pool, billing } = this.d;
    const o = req.options;
    requireFeature(auth, 'stt');
    const model = registry.checkSttModel(o.model, req.endpoint);
    if (o.diarize) requireFeature(auth, 'diarization');
    const language = registry.resolveSttLanguage(model, o.language);
    // No language given: an engine that can tell (a multilingual Whisper) detects it and says so.
    const detectLanguage = o.language === undefined || o.language.trim() === '';
    const binding = registry.requireSttBinding(model);
    const task = req.task ?? 'transcribe';
    if (task === 'translate' && !binding.engine.translates) {
      throw new ApiError('INVALID_REQUEST', { message: `${model} cannot translate here: its engine (${binding.engine.id}) recognizes speech in its own language only.`, details: { field: 'model', provided: model } });
    }
    if (!req.audio || req.audio.length === 0) throw new ApiError('MISSING_FILE');

    const decoded = await pool.run('audio.decode', { bytes: req.audio }, signal ? { signal } : {});
    if (!decoded.ok) throw new ApiError('INVALID_AUDIO', { message: `The audio could not be decoded: ${decoded.reason}` });
    const pcm = decoded.pcm;
    const duration = +(pcm.length / 16000).toFixed(3);
    const credits = registry.sttCredits(model, duration);
    req.onDecoded?.(duration);
    let served = { engine: binding.engine.id, language, task: 'transcribe' as 'transcribe' | 'translate' };
    const { result: transcript, balance } = await billing.run(auth, { requestId: req.requestId, kind: 'stt', model, credits, characters: 0, ...(req.holdId ? { holdId: req.holdId } : {}) }, async () => {
      const recognizing = performance.now();
      const recognitionOptions = { language, profile: binding.profile, keywords: o.keywords, detectLanguage, ...(task === 'translate' ? { task } : {}) };
      const { result, pieces } = await recognizeRecording(binding.engine, pcm, recognitionOptions, {
        pool,
        long: this.d.config.sttLong,
        ...(signal ? { signal } : {}),
        ...(req.onProgress ? { onProgress: req.onProgress } : {}),
      });
      this.d.onPieces?.(pieces);
      served = { engine: result.engine ?? binding.engine.id, language: detectLanguage && result.language ? result.language : language, task: result.task ?? 'transcribe' };
      this.d.onRecognition?.(duration, (performance.now() - recognizing) / 1000, binding.engine.id);
      // A recognition cannot be interrupted, but work aborted meanwhile (a canceled job) is not billed.
      signal?.throwIfAborted();
      const transcript = buildTranscript(result.utterances, { smartFormat: o.smartFormat, punctuate: o.punctuate });
      if (o.diarize && transcript.words.length) {
        const spans = diarizationSpans(transcript);
        const labels = await pool.run('stt.diarize', { pcm, spans: spans.map((s) => ({ start: s.start, end: s.end })) });
        applySpeakers(transcript, spans, labels);
      }
      return { result: transcript, used: { units: billableSeconds(duration), characters: 0, credits } };
    });
    return { transcript, model, provider: engineFamily(model), language: served.language, engine: served.engine, task: served.task, duration, credits, balance: balance! };
  }

  /**
   * Admits a real-time stream, or throws what to refuse the upgrade with: the feature, the model's
   * language and engine (as batch), the account's windows and concurrency slot (as an API request),
   * the credits of the first block (what the balance covers, up to a block; below one second,
   * 402), and a free recognizer within `recognizerWaitMs` (503).
   */
  async openLive(auth: AuthContext, req: LiveRequest): Promise<LiveStream> {
    const { config, registry, billing, limiter } = this.d;
    const language = registry.resolveSttLanguage(req.model, req.language);
    const binding = registry.requireSttBinding(req.model);
    const plan = config.product.plans[auth.account.plan];
    const rate = registry.sttRate(req.model);
    // The same windows, slot and refusals as an API request (one limiter step).
    const admitted = await admitRequest(limiter, auth.account, plan, SLOT_LEASE_MS);
    if (admitted.refusal) throw admitted.refusal;
    const slotId = admitted.slotId;
    const releaseSlot = () => limiter.releaseSlot(auth.account.id, slotId);
    let work: BillableWork | null = null;
    try {
      // The hold grows while audio arrives (RealtimeSession.ensureCredits).
      const balance = await billing.balance(auth);
      const heldSeconds = Math.max(1, Math.min(req.holdBlockSeconds, Math.floor(balance / rate)));
      work = await billing.begin(auth, { requestId: req.requestId, kind: 'stt_realtime', model: req.model, credits: heldSeconds * rate, characters: 0 });
      const stream = await openWithin(binding.engine.openStream({ language, profile: binding.profile, keywords: req.keywords }), req.recognizerWaitMs);
      const held = work;
      return {
        stream,
        language,
        engine: binding.engine.id,
        work: held,
        heldSeconds,
        creditsPerSecond: rate,
        renewSlot: () => void limiter.renewSlot(auth.account.id, slotId, SLOT_LEASE_MS),
        releaseSlot,
        abandon: async () => {
          // Nothing was streamed, nothing is billed.
          await stream.close().catch(() => undefined);
          await held.fail();
          await releaseSlot();
        },
      };
    } catch (err) {
      if (work) await work.fail();
      await releaseSlot();
      throw err;
    }
  }
}

/** The slot's lease renewal period for a live stream. */
export const LIVE_SLOT_RENEW_MS = SLOT_LEASE_MS / 3;

/** The stream, or 503 SERVICE_OVERLOADED when no recognizer frees up in time (a late one is given back). */
async function openWithin(opening: Promise<SttStream>, ms: number): Promise<SttStream> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ApiError('SERVICE_OVERLOADED', { message: 'Every speech recognizer is busy with other streams; try again shortly.', retryAfter: 5 })),
      ms,
    );
  });
  try {
    return await Promise.race([opening, timeout]);
  } catch (err) {
    opening.then((s) => s.close()).catch(() => undefined);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
