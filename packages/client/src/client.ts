// ParlaClient: typed methods for every endpoint of the Parla API, with the interface's retry rules.

import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { ParlaError } from './errors.js';
import { defaultRetryEnvironment, type RetryEnvironment, type RetryOptions } from './retry.js';
import { send, type RequestSpec, type TransportOptions } from './transport.js';
import { RealtimeConnection, type RealtimeOptions } from './realtime.js';
import type {
  AudioFormat,
  AudioSource,
  CreateJobOptions,
  CreditRecord,
  GenerateRequest,
  Job,
  JobPage,
  ListJobsOptions,
  WaitOptions,
  GenerateResult,
  GenerateWithTimestampsResult,
  WordTimestamp,
  HealthRecord,
  LanguageList,
  Model,
  ResponseFormat,
  StreamRequest,
  TranscribeOptions,
  TranscribeResult,
  TtsModel,
  UsageRecord,
  VoiceList,
} from './types.js';

export interface ParlaClientOptions {
  /** Defaults to the PARLA_API_KEY environment variable. */
  apiKey?: string;
  /** Service address; "/api/v1" is appended when missing. Default PARLA_URL or http://127.0.0.1:8080. */
  baseUrl?: string;
  /**
   * Real-time address (wss://host:port, or the whole .../stt/realtime/stream URL). Default
   * PARLA_REALTIME_URL, else the address the server states at GET /stt/realtime/info.
   */
  realtimeUrl?: string;
  /** Per-attempt timeout, ms (default 60 s). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Clock and random source for retries (tests inject their own). */
  retryEnvironment?: RetryEnvironment;
  fetch?: typeof fetch;
  /**
   * TLS options for the real-time WebSocket. For a server with a self-signed certificate pass its
   * certificate: { ca: readFileSync('data/tls/realtime-cert.pem') } (the file is in the server's data directory).
   */
  realtimeTls?: { ca?: string | Buffer; rejectUnauthorized?: boolean };
}

export type AudioInput = AudioSource;

/** The batch fields a transcription (synchronous or a job) sends, in the order the API lists them. */
const TRANSCRIBE_FIELDS = [
  'model',
  'language',
  'response_format',
  'prompt',
  'timestamp_granularities',
  'diarize',
  'smart_format',
  'punctuate',
  'keywords',
] as const;

const FINISHED_JOB = new Set(['completed', 'failed', 'canceled']);

const VERSION = '0.1.0';

function withApiPrefix(url: string): { root: string; api: string } {
  const trimmed = url.replace(/\/+$/, '');
  const root = trimmed.replace(/\/api\/v1$/, '');
  return { root, api: `${root}/api/v1` };
}

async function toBlob(input: AudioInput): Promise<{ blob: Blob; name: string }> {
  if (typeof input === 'string') return { blob: new Blob([new Uint8Array(await readFile(input))]), name: basename(input) };
  if (input instanceof Blob) return { blob: input, name: 'audio' };
  if (input instanceof Uint8Array) return { blob: new Blob([new Uint8Array(input)]), name: 'audio' };
  if (input instanceof ArrayBuffer) return { blob: new Blob([new Uint8Array(input)]), name: 'audio' };
  const chunks: Buffer[] = [];
  for await (const c of input as AsyncIterable<Buffer | string>) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return { blob: new Blob([new Uint8Array(Buffer.concat(chunks))]), name: 'audio' };
}

function numberHeader(res: Response, name: string): number | null {
  const v = res.headers.get(name);
  return v === null || v === '' || Number.isNaN(Number(v)) ? null : Number(v);
}

export class ParlaClient {
  readonly baseUrl: string;
  readonly rootUrl: string;
  /** The configured real-time address; null: asked from the server at connect. */
  readonly realtimeUrl: string | null;
  private readonly transport: TransportOptions;
  private readonly realtimeTls: ParlaClientOptions['realtimeTls'];

  constructor(opts: ParlaClientOptions = {}) {
    const env = typeof process !== 'undefined' ? process.env : {};
    const { root, api } = withApiPrefix(opts.baseUrl ?? env.PARLA_URL ?? 'http://127.0.0.1:8080');
    this.rootUrl = root;
    this.baseUrl = api;
    const realtime = opts.realtimeUrl ?? env.PARLA_REALTIME_URL;
    this.realtimeUrl = realtime ? realtime.replace(/\/+$/, '') : null;
    this.realtimeTls = opts.realtimeTls;
    this.transport = {
      apiKey: opts.apiKey ?? env.PARLA_API_KEY,
      baseUrl: api,
      timeoutMs: opts.timeoutMs ?? 60_000,
      retry: opts.retry ?? {},
      env: opts.retryEnvironment ?? defaultRetryEnvironment,
      fetch: opts.fetch ?? globalThis.fetch.bind(globalThis),
      userAgent: `parla-client/${VERSION} node/${process.versions.node}`,
    };
  }

  private async json<T>(spec: RequestSpec): Promise<T> {
    const res = await send(this.transport, spec);
    return (await res.json()) as T;
  }

  readonly tts = {
    /** POST /tts/generate: the whole audio file with the response metadata. */
    generate: async (req: GenerateRequest, opts: { signal?: AbortSignal } = {}): Promise<GenerateResult> => {
      const res = await send(this.transport, {
        method: 'POST',
        path: 'tts/generate',
        json: req,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      const audio = new Uint8Array(await res.arrayBuffer());
      const disposition = res.headers.get('content-disposition');
      return {
        audio,
        contentType: res.headers.get('content-type') ?? 'application/octet-stream',
        fileName: disposition ? (/filename="?([^";]+)"?/.exec(disposition)?.[1] ?? null) : null,
        requestId: res.headers.get('x-request-id'),
        processingTimeMs: numberHeader(res, 'x-processing-time-ms'),
        creditsUsed: numberHeader(res, 'x-credits-used'),
        creditsRemaining: numberHeader(res, 'x-credits-remaining'),
      };
    },
    /**
     * POST /tts/generate/with-timestamps: the same file as generate() (same body, price and
     * errors) with each spoken word's start and end in seconds on that audio.
     */
    generateWithTimestamps: async (req: GenerateRequest, opts: { signal?: AbortSignal } = {}): Promise<GenerateWithTimestampsResult> => {
      const res = await send(this.transport, {
        method: 'POST',
        path: 'tts/generate/with-timestamps',
        json: req,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      const body = (await res.json()) as {
        audio_base64: string;
        format: AudioFormat;
        sample_rate: number;
        duration: number;
        credits_used: number;
        words: WordTimestamp[];
      };
      const bytes = Buffer.from(body.audio_base64, 'base64');
      return {
        audio: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        format: body.format,
        sampleRate: body.sample_rate,
        duration: body.duration,
        creditsUsed: body.credits_used,
        creditsRemaining: numberHeader(res, 'x-credits-remaining'),
        words: body.words,
        requestId: res.headers.get('x-request-id'),
        processingTimeMs: numberHeader(res, 'x-processing-time-ms'),
      };
    },
    /**
     * POST /tts/stream: raw 16-bit little-endian mono PCM as it is synthesized. Only the request
     * is retried; once audio flows, a broken stream is reported, not repeated.
     */
    stream: async (
      req: StreamRequest,
      opts: { signal?: AbortSignal } = {},
    ): Promise<{ sampleRate: number; requestId: string | null; chunks: AsyncIterable<Uint8Array> }> => {
      const res = await send(this.transport, {
        method: 'POST',
        path: 'tts/stream',
        json: req,
        ...(opts.signal ? { signal: opts.signal } : {}),
        timeoutMs: 10 * 60_000,
      });
      if (!res.body) throw new ParlaError({ status: res.status, code: 'UNEXPECTED_RESPONSE', message: 'the stream has no body' });
      const body = res.body;
      return {
        sampleRate: numberHeader(res, 'x-sample-rate') ?? req.sample_rate ?? 24000,
        requestId: res.headers.get('x-request-id'),
        chunks: (async function* () {
          for await (const chunk of Readable.fromWeb(body as never)) yield new Uint8Array(chunk as Buffer);
        })(),
      };
    },
  };

  readonly voices = {
    /** GET /voices: the response shape depends on model and language (discriminated by `shape`). */
    list: async (query: { model?: TtsModel; language?: string; gender?: 'male' | 'female' } = {}): Promise<VoiceList> => {
      const body = await this.json<Record<string, unknown>>({ method: 'GET', path: 'voices', query });
      if ('voices_by_language' in body) return { shape: 'flash', ...body } as VoiceList;
      if ('supported_models' in body) return { shape: 'aura', ...body } as VoiceList;
      if (query.language !== undefined && query.model === undefined) return { shape: 'basic', ...body } as VoiceList;
      return { shape: 'extended', ...body } as VoiceList;
    },
  };

  readonly languages = {
    list: (query: { model?: TtsModel } = {}): Promise<LanguageList> => this.json({ method: 'GET', path: 'languages', query }),
  };

  readonly models = {
    list: async (): Promise<Model[]> => (await this.json<{ models: Model[] }>({ method: 'GET', path: 'models' })).models,
  };

  readonly usage = {
    get: (): Promise<UsageRecord> => this.json({ method: 'GET', path: 'usage' }),
  };

  readonly credits = {
    get: (): Promise<CreditRecord> => this.json({ method: 'GET', path: 'user/credits' }),
  };

  /** GET /health (no key needed). */
  health(): Promise<HealthRecord> {
    return this.json({ method: 'GET', path: `${this.rootUrl}/health`, auth: false });
  }

  private async transcribeAt<F extends ResponseFormat | undefined>(
    path: string,
    input: AudioInput,
    opts: TranscribeOptions & { response_format?: F },
  ): Promise<TranscribeResult<F>> {
    const { blob, name } = await toBlob(input);
    const form = () => {
      const f = new FormData();
      f.set('file', blob, opts.filename ?? name);
      for (const key of TRANSCRIBE_FIELDS) {
        const v = opts[key];
        if (v === undefined) continue;
        f.set(key, Array.isArray(v) ? v.join(',') : String(v));
      }
      return f;
    };
    const res = await send(this.transport, {
      method: 'POST',
      path,
      form,
      timeoutMs: Math.max(this.transport.timeoutMs, 10 * 60_000),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onRetry ? { onRetry: (a: number, d: number) => opts.onRetry?.(a, d) } : {}),
    });
    const format = opts.response_format ?? 'json';
    return (format === 'text' || format === 'srt' || format === 'vtt' ? await res.text() : await res.json()) as TranscribeResult<F>;
  }

  readonly stt = {
    /** POST /stt/transcribe: any model; accepts every Cipher and Lucid field. */
    transcribe: <F extends ResponseFormat | undefined = undefined>(
      input: AudioInput,
      opts: TranscribeOptions & { response_format?: F } = {},
    ) => this.transcribeAt<F>('stt/transcribe', input, opts),
    /** POST /stt/cipher/transcribe: cipher-fast, cipher-max. */
    cipher: <F extends ResponseFormat | undefined = undefined>(input: AudioInput, opts: TranscribeOptions & { response_format?: F } = {}) =>
      this.transcribeAt<F>('stt/cipher/transcribe', input, opts),
    /** POST /stt/lucid/transcribe: lucid-mono (the default), lucid-multi, lucid-agent, lucid-lite; every response_format. */
    lucid: <F extends ResponseFormat | undefined = undefined>(input: AudioInput, opts: TranscribeOptions & { response_format?: F } = {}) =>
      this.transcribeAt<F>('stt/lucid/transcribe', input, opts),
    /** GET /stt/realtime/info. */
    realtimeInfo: (): Promise<Record<string, unknown>> => this.json({ method: 'GET', path: 'stt/realtime/info' }),
  };

  private async announcedRealtimeUrl(): Promise<string> {
    const info = await this.stt.realtimeInfo();
    if (typeof info.url !== 'string' || !/^wss?:\/\//.test(info.url)) {
      throw new ParlaError({
        status: 0,
        code: 'UNEXPECTED_RESPONSE',
        message: 'GET /stt/realtime/info did not state a ws:// or wss:// url: pass realtimeUrl or set PARLA_REALTIME_URL.',
      });
    }
    return info.url;
  }

  readonly realtime = {
    /**
     * Opens a live transcription stream (wss://.../api/v1/stt/realtime/stream) at the configured
     * real-time address, or where GET /stt/realtime/info says the socket listens.
     */
    connect: async (opts: RealtimeOptions = {}): Promise<RealtimeConnection> => {
      if (!this.transport.apiKey)
        throw new ParlaError({ status: 0, code: 'AUTH_MISSING_API_KEY', message: 'No API key: pass apiKey or set PARLA_API_KEY.' });
      const url = this.realtimeUrl ?? (await this.announcedRealtimeUrl());
      return RealtimeConnection.open(url, this.transport.apiKey, opts, this.realtimeTls);
    },
  };

  readonly jobs = {
    /**
     * POST /stt/jobs: queues a transcription of an upload (`file`) or of audio at a URL (`url`) and
     * answers at once with the queued job. Retried like every call: an Idempotency-Key (yours, or
     * one made for this call) makes a repeated request answer the same job instead of a second one.
     */
    create: async (opts: CreateJobOptions): Promise<Job> => {
      if ((opts.file === undefined) === (opts.url === undefined)) {
        throw new ParlaError({ status: 0, code: 'INVALID_REQUEST', message: 'jobs.create needs exactly one of file and url.' });
      }
      const headers = { 'Idempotency-Key': opts.idempotencyKey ?? `parla-client-${randomUUID()}` };
      const fields: Record<string, string> = {};
      for (const key of TRANSCRIBE_FIELDS) {
        const v = opts[key];
        if (v !== undefined) fields[key] = Array.isArray(v) ? v.join(',') : String(v);
      }
      if (opts.callback_url !== undefined) fields.callback_url = opts.callback_url;
      if (opts.zero_retention !== undefined) fields.zero_retention = String(opts.zero_retention);
      let body: Pick<RequestSpec, 'json' | 'form'>;
      if (opts.file !== undefined) {
        const { blob, name } = await toBlob(opts.file);
        body = {
          form: () => {
            const f = new FormData();
            for (const [k, v] of Object.entries(fields)) f.set(k, v);
            f.set('file', blob, opts.filename ?? name);
            return f;
          },
        };
      } else {
        body = { json: { url: opts.url, ...fields } };
      }
      const res = await this.json<{ job: Job }>({
        method: 'POST',
        path: 'stt/jobs',
        headers,
        ...body,
        // An upload of up to 1 GiB may take a while to send.
        timeoutMs: opts.file !== undefined ? Math.max(this.transport.timeoutMs, 30 * 60_000) : this.transport.timeoutMs,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onRetry ? { onRetry: (a: number, d: number) => opts.onRetry?.(a, d) } : {}),
      });
      return res.job;
    },

    /** GET /stt/jobs/{id}: the job (another account's id is 404 NOT_FOUND, like an unknown one). */
    get: async (id: string, opts: { signal?: AbortSignal } = {}): Promise<Job> =>
      (
        await this.json<{ job: Job }>({
          method: 'GET',
          path: `stt/jobs/${encodeURIComponent(id)}`,
          ...(opts.signal ? { signal: opts.signal } : {}),
        })
      ).job,

    /** GET /stt/jobs: one page of the account's jobs, newest first. */
    list: async (opts: ListJobsOptions = {}): Promise<JobPage> => {
      const body = await this.json<{ jobs: Job[]; next_cursor?: string | null }>({
        method: 'GET',
        path: 'stt/jobs',
        query: { limit: opts.limit, cursor: opts.cursor, status: opts.status },
      });
      return { jobs: body.jobs, next_cursor: body.next_cursor ?? null };
    },

    /** Every job of the account (or of one status), newest first, fetching page after page as the loop asks. */
    iterate: (opts: Omit<ListJobsOptions, 'cursor'> = {}): AsyncIterable<Job> => {
      const list = this.jobs.list;
      return {
        async *[Symbol.asyncIterator]() {
          let cursor: string | undefined;
          do {
            const page = await list({ ...opts, ...(cursor ? { cursor } : {}) });
            yield* page.jobs;
            cursor = page.next_cursor ?? undefined;
          } while (cursor);
        },
      };
    },

    /**
     * DELETE /stt/jobs/{id}: cancels a queued or running job (its held credits are released), or
     * deletes a finished job's stored result. The job after the call.
     */
    cancel: async (id: string): Promise<Job> =>
      (await this.json<{ job: Job }>({ method: 'DELETE', path: `stt/jobs/${encodeURIComponent(id)}` })).job,

    /**
     * GET /stt/jobs/{id}/result: the transcript in the job's response_format: a string for text, srt
     * and vtt, the parsed JSON otherwise. Name the format for a precise type.
     */
    result: async <F extends ResponseFormat = ResponseFormat>(
      id: string,
      _typeHint: { response_format?: F } = {},
    ): Promise<TranscribeResult<F>> => {
      const res = await send(this.transport, { method: 'GET', path: `stt/jobs/${encodeURIComponent(id)}/result` });
      const type = res.headers.get('content-type') ?? '';
      return (/\bjson\b/i.test(type) ? await res.json() : await res.text()) as TranscribeResult<F>;
    },

    /**
     * Polls GET /stt/jobs/{id} until the job is completed, failed or canceled, and returns it as it
     * ended (a failed job is returned, not thrown: see its `error`). A ParlaError TIMEOUT after
     * timeoutMs.
     */
    wait: async (id: string, opts: WaitOptions = {}): Promise<Job> => {
      const interval = opts.intervalMs ?? 2000;
      const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
      for (;;) {
        const job = await this.jobs.get(id, opts.signal ? { signal: opts.signal } : {});
        opts.onPoll?.(job);
        if (FINISHED_JOB.has(job.status)) return job;
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new ParlaError({
            status: 0,
            code: 'TIMEOUT',
            message: `job ${id} is still ${job.status} after ${opts.timeoutMs} ms`,
            details: { job_id: id, status: job.status },
          });
        }
        await this.transport.env.sleep(Math.min(interval, left), opts.signal);
      }
    },
  };
}
