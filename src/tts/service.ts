// The TTS service: what /tts/generate and /tts/stream do, for any edge (the native routes today,
// the compatible dialects and the job queue next). A plain request, the caller's AuthContext and an
// AbortSignal in; audio and what was charged out. Its steps: prepare the job (permissions, markup,
// voice, engine, price: prepare.ts), admit it to the worker pool as one whole request or refuse
// with overload before any credit is held (WorkerPool.admit), hold the credits, synthesize, settle
// once (billing.ts). Nothing here knows HTTP.

import { asTenant } from '../domain/tenant.js';
import { PassThrough, type Readable } from 'node:stream';
import type { Config } from '../config.js';
import type { AuthContext } from '../accounts/auth-context.js';
import type { Billing, BillableWork, SettleSpec } from '../accounts/billing.js';
import { ApiError } from '../errors.js';
import type { WorkerPool } from '../workers/pool.js';
import { prepareTts, type TtsRequest } from './prepare.js';
import { generateAudio, type GeneratedAudio, type OutputFormat } from './generate.js';
import { generateEncoded } from './encoded.js';
import type { SpeakEncodeSpec } from '../audio/speak-encoding.js';
import { streamAudio, STREAM_SAMPLE_RATES } from './stream.js';
import { checkTimestamps, synthesizeWithTimestamps, type TimedSpeech } from './timestamps.js';
import type { TtsCatalogPort, TtsModelsPort } from './ports.js';

export interface TtsGenerateRequest extends TtsRequest {
  /** The id the ledger row and the logs carry. */
  requestId: string;
  format: OutputFormat;
}

export interface TtsGenerated {
  audio: GeneratedAudio;
  credits: number;
  /** The billable characters (pricing.ts). */
  characters: number;
  /** The balance after settling. */
  balance: number;
  /** Id of the engine that spoke it (e.g. "studio-festival", "sherpa:kokoro-en-v0_19"): the X-Engine header. */
  engine: string;
}

export interface TtsTimed {
  timed: TimedSpeech;
  credits: number;
  /** The balance after settling. */
  balance: number;
}

export interface TtsStreamRequest extends TtsRequest {
  requestId: string;
  /** One of STREAM_SAMPLE_RATES; anything else is INVALID_SAMPLE_RATE. */
  sampleRate: number;
}

export interface TtsStreaming {
  /** Raw s16le mono PCM at sampleRate; ends once the stream is settled, or is destroyed on a failure. */
  body: Readable;
  sampleRate: number;
  /** The price of the whole text, held while streaming. */
  creditsReserved: number;
  /** Id of the engine speaking it: the X-Engine header. */
  engine: string;
  /**
   * What the ledger says was charged once the body has ended (only sentences whose audio was all
   * sent are billed), or null when nothing was settled (a settlement that failed).
   */
  creditsUsed(): number | null;
}

/** Where a failure that no caller can be told about any more (mid-stream) is reported. */
export interface ErrorLog {
  error(obj: { err: unknown }, message: string): void;
}

export interface TtsServiceDeps {
  config: Config;
  catalog: TtsCatalogPort;
  models: TtsModelsPort;
  pool: WorkerPool;
  billing: Billing;
  /** Told the audio length and the wall time of each synthesis (metrics). */
  onSynthesis?: (audioSeconds: number, workSeconds: number, engineId: string) => void;
}

export class TtsService {
  readonly catalog: TtsCatalogPort;

  constructor(private readonly d: TtsServiceDeps) {
    this.catalog = d.catalog;
  }

  /** A complete audio file in `format`. */
  async generate(auth: AuthContext, req: TtsGenerateRequest, signal?: AbortSignal): Promise<TtsGenerated> {
    return this.billedFile(
      auth,
      req,
      'generate',
      (pool, job) => generateAudio(pool, job, req.format, signal),
      (a) => a.seconds,
    );
  }

  /**
   * The file of generate() in one of Deepgram's speak encodings at a chosen rate (the Deepgram
   * dialect's POST /v1/speak): the same feature, price, limits, ledger kind and errors as generate.
   * `finish` turns the file into the answer (ffmpeg's Opus and AAC from raw PCM) inside the billed
   * step, so a failure there bills nothing, as a failed synthesis does.
   */
  async generateEncoded(
    auth: AuthContext,
    req: TtsRequest & { requestId: string },
    spec: SpeakEncodeSpec,
    signal?: AbortSignal,
    finish?: (file: Uint8Array) => Promise<Uint8Array>,
  ): Promise<TtsGenerated> {
    const make = async (pool: WorkerPool, job: ReturnType<typeof prepareTts>) => {
      const audio = await generateEncoded(pool, job, spec, signal);
      if (!finish) return audio;
      const body = await finish(audio.body as Uint8Array);
      return { body, byteLength: body.byteLength, seconds: audio.seconds };
    };
    return this.billedFile(auth, { ...req, format: 'wav' }, 'generate', make, (a) => a.seconds);
  }

  /**
   * Everything a stream of `req` would be refused for before its text is known (feature, plan,
   * model, voice, engine), for an edge that opens a session first and sends text later (the
   * Deepgram dialect's WS /v1/speak refuses the handshake instead of the first utterance).
   */
  checkStream(auth: AuthContext, req: Omit<TtsStreamRequest, 'text' | 'requestId'>): void {
    const { config, catalog, models } = this.d;
    if (!(STREAM_SAMPLE_RATES as readonly number[]).includes(req.sampleRate)) {
      throw new ApiError('INVALID_SAMPLE_RATE', { details: { field: 'sample_rate', provided: String(req.sampleRate) } });
    }
    prepareTts(config, catalog, models, auth, { ...req, text: 'a' }, 'stream');
  }

  /**
   * The file of generate() with each spoken word's start and end (src/tts/timestamps.ts): the same
   * price, limits and errors; an engine that can give no timings here is refused before any hold.
   */
  async generateWithTimestamps(auth: AuthContext, req: TtsGenerateRequest, signal?: AbortSignal): Promise<TtsTimed> {
    const { audio, credits, balance } = await this.billedFile(
      auth,
      req,
      'generate',
      (pool, job) => synthesizeWithTimestamps(pool, job, req.format, signal),
      (t) => t.duration,
      checkTimestamps,
    );
    return { timed: audio, credits, balance };
  }

  /** prepare -> admit (or refuse before any hold) -> hold -> make the file -> settle once. */
  private async billedFile<T>(
    auth: AuthContext,
    req: TtsGenerateRequest,
    mode: 'generate',
    make: (pool: WorkerPool, job: ReturnType<typeof prepareTts>) => Promise<T>,
    secondsOf: (made: T) => number,
    check?: (job: ReturnType<typeof prepareTts>) => void,
  ): Promise<{ audio: T; credits: number; balance: number; characters: number; engine: string }> {
    const { config, catalog, models, pool, billing } = this.d;
    const started = performance.now();
    const job = prepareTts(config, catalog, models, auth, req, mode);
    check?.(job);
    // A full node refuses before any credit is held (WorkerPool.admit).
    const admission = pool.admit();
    const used = { units: job.characters, characters: job.characters, credits: job.credits };
    let ran: { result: T; balance: number | null };
    try {
      ran = await billing.run(
        auth,
        { requestId: req.requestId, kind: 'tts', model: job.model, credits: job.credits, characters: job.characters },
        async () => {
          try {
            // The account's turn in the pool's queue (decision #58).
            const made = await admission.run(() => asTenant(auth.account.id, () => make(pool, job)));
            this.d.onSynthesis?.(secondsOf(made), (performance.now() - started) / 1000, job.voice.engine.id);
            return { result: made, used };
          } finally {
            // The place is freed before settling: the workers are done with this request.
            admission.release();
          }
        },
      );
    } finally {
      // Refused at the hold: the place goes back too (release is idempotent).
      admission.release();
    }
    const audio = ran.result;
    const balance = ran.balance!;
    return { audio, credits: job.credits, balance, characters: job.characters, engine: job.voice.engine.id };
  }

  /**
   * Raw PCM while it is synthesized. Resolves once the first audio is ready, so a failure before
   * it is still the caller's error; later failures end the body early and bill only what was sent.
   * `signal`: the client went away (synthesis stops, what was sent is billed).
   */
  async stream(auth: AuthContext, req: TtsStreamRequest, signal: AbortSignal, log?: ErrorLog): Promise<TtsStreaming> {
    const { config, catalog, models, pool, billing } = this.d;
    if (!(STREAM_SAMPLE_RATES as readonly number[]).includes(req.sampleRate)) {
      throw new ApiError('INVALID_SAMPLE_RATE', { details: { field: 'sample_rate', provided: String(req.sampleRate) } });
    }
    const job = prepareTts(config, catalog, models, auth, req, 'stream');
    // A full node refuses before any credit is held; the place is freed once the first audio is
    // out or the stream failed before it (WorkerPool.admit says why).
    const admission = pool.admit();
    let work: BillableWork;
    try {
      work = await billing.begin(auth, {
        requestId: req.requestId,
        kind: 'tts_stream',
        model: job.model,
        credits: job.credits,
        characters: job.characters,
      });
    } catch (err) {
      admission.release();
      throw err;
    }

    const out = new PassThrough();
    // What the ledger row says was charged, once it is written.
    let creditsUsed: number | null = null;
    const usage = (charactersSent: number): SettleSpec | null =>
      charactersSent === 0
        ? null
        : {
            units: charactersSent,
            characters: charactersSent,
            credits: Math.round((job.credits * charactersSent) / Math.max(1, job.characters)),
          };
    const settle = async (charactersSent: number) => {
      if (work.finished) return;
      const used = usage(charactersSent);
      await work.finish(used).then(
        () => (creditsUsed = used?.credits ?? 0),
        (err: unknown) => log?.error({ err }, 'settling a stream failed'),
      );
    };

    const run = admission.run(() => asTenant(auth.account.id, () => streamAudio(pool, job, req.sampleRate, out, signal)));
    try {
      await run.firstChunk;
    } catch (err) {
      await settle(0);
      throw err;
    } finally {
      admission.release();
    }
    run.done.then(
      async (sent) => {
        await settle(sent);
        out.end();
      },
      async (err: unknown) => {
        await settle(run.charactersSent());
        if (!signal.aborted) log?.error({ err }, 'stream synthesis failed mid-stream');
        out.destroy(err instanceof Error ? err : new Error(String(err)));
      },
    );
    return {
      body: out,
      sampleRate: req.sampleRate,
      creditsReserved: job.credits,
      engine: job.voice.engine.id,
      creditsUsed: () => creditsUsed,
    };
  }
}
