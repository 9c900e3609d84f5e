// Response and request types of the Parla API (interface.md and decisions.md).

export type TtsModel = 'aura-lite' | 'aura-prime' | 'aura-max' | 'rapid-flash' | 'rapid-max';
export type SttModel = 'cipher-fast' | 'cipher-max' | 'lucid-mono' | 'lucid-multi' | 'lucid-agent' | 'lucid-lite';
export type AudioFormat = 'wav' | 'mp3' | 'ogg' | 'flac';
export type ResponseFormat = 'json' | 'text' | 'verbose_json' | 'srt' | 'vtt';
export type Plan = 'free' | 'basic' | 'pro' | 'enterprise';

export interface GenerateRequest {
  text: string;
  voice: string;
  model?: TtsModel;
  language?: string;
  speed?: number;
  pitch?: number;
  format?: AudioFormat;
}

export interface GenerateResult {
  audio: Uint8Array;
  contentType: string;
  fileName: string | null;
  requestId: string | null;
  processingTimeMs: number | null;
  creditsUsed: number | null;
  creditsRemaining: number | null;
}

/** One spoken word of the text and where it is on the audio, seconds. */
export interface WordTimestamp {
  word: string;
  start: number;
  end: number;
}

/** POST /tts/generate/with-timestamps: the audio file (decoded from base64) and its words. */
export interface GenerateWithTimestampsResult {
  audio: Uint8Array;
  format: AudioFormat;
  sampleRate: number;
  /** Seconds. */
  duration: number;
  creditsUsed: number;
  creditsRemaining: number | null;
  /** Every spoken word of the text in order (markup removed). */
  words: WordTimestamp[];
  requestId: string | null;
  processingTimeMs: number | null;
}

export interface StreamRequest {
  text: string;
  voice: string;
  model?: Exclude<TtsModel, never>;
  language?: string;
  sample_rate?: 8000 | 16000 | 22050 | 24000 | 44100 | 48000;
  speed?: number;
  pitch?: number;
}

export interface Model {
  id: TtsModel;
  name: string;
  description: string;
  languages: number;
  plans?: Plan[];
}

export interface Language {
  code: string;
  name: string;
  region: string;
}

export interface LanguageList {
  success: boolean;
  languages: Language[];
  total: number;
  model: string;
}

/** GET /voices without model and with language. */
export interface BasicVoiceList {
  shape: 'basic';
  voices: Array<{ voice_id: string; name: string; gender: string; language: string; preview_url?: string; premium?: boolean }>;
  total: number;
}
/** GET /voices without model or language. */
export interface ExtendedVoiceList {
  shape: 'extended';
  voices: Array<{
    id: string;
    name: string;
    gender: string;
    age: string;
    style: string;
    languages: string[];
    sample_url: string;
    premium?: boolean;
  }>;
  total: number;
}
/** GET /voices?model=<aura model or rapid-max>. */
export interface AuraVoiceList {
  shape: 'aura';
  success: boolean;
  voices: Array<{ id: string; name: string; gender: string; premium?: boolean }>;
  total: number;
  language: string;
  model: string;
  supported_models: string[];
  note: string;
}
/** GET /voices?model=rapid-flash. */
export interface FlashVoiceList {
  shape: 'flash';
  success: boolean;
  model: string;
  total_voices: number;
  total_languages: number;
  voices_by_language: Record<string, Array<{ name: string; gender: string }>>;
  supported_languages: string[];
}
export type VoiceList = BasicVoiceList | ExtendedVoiceList | AuraVoiceList | FlashVoiceList;

export interface UsageRecord {
  plan: string;
  period: { start: string; end: string };
  usage: {
    characters_used: number;
    characters_limit: number;
    characters_remaining: number;
    requests_today: number;
    requests_this_month: number;
  };
  rate_limits: { requests_per_minute: number; requests_per_hour: number };
}

export interface CreditRecord {
  credits: number;
  used_this_month: number;
  plan: string;
  renewal_date: string;
}

export interface HealthRecord {
  status: string;
  version: string;
  timestamp: string;
  [extra: string]: unknown;
}

export interface Word {
  word: string;
  start: number;
  end: number;
  confidence?: number;
  speaker?: number;
}

export interface Transcription {
  text: string;
  language: string;
  duration: number;
  model: string;
  provider: string;
  /** What served it on the server: "pocketsphinx", or "sherpa:<model>" for an installed model. */
  engine?: string;
  credits_used: number;
  words?: Word[];
  [extra: string]: unknown;
}

export interface Segment {
  id: number;
  start: number;
  end: number;
  text: string;
  [extra: string]: unknown;
}

export interface VerboseTranscription extends Transcription {
  task: string;
  segments: Segment[];
}

export interface TranscribeOptions {
  model?: SttModel;
  language?: string;
  response_format?: ResponseFormat;
  /** Cipher */
  prompt?: string;
  timestamp_granularities?: 'word' | 'segment';
  /** Lucid */
  diarize?: boolean;
  smart_format?: boolean;
  punctuate?: boolean;
  keywords?: string | string[];
  /** File name sent with the upload (default from the path, or "audio"). */
  filename?: string;
  signal?: AbortSignal;
  /** Called before each retry wait. */
  onRetry?: (attempt: number, delayMs: number) => void;
}

export type TranscribeResult<F extends ResponseFormat | undefined> = F extends 'text' | 'srt' | 'vtt'
  ? string
  : F extends 'verbose_json'
    ? VerboseTranscription
    : Transcription;

/** Asynchronous transcription jobs (docs/jobs.md). */
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'canceled';

export interface JobWebhookAttempt {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came. */
  status: number | null;
  ok: boolean;
  error: string | null;
  duration_ms: number;
}

/** A job as GET /stt/jobs/{id} shows it (and the webhook carries it). */
export interface Job {
  id: string;
  status: JobStatus;
  model: string | null;
  language: string | null;
  response_format: ResponseFormat | null;
  /** 0-1 while running, 1 when completed, null before the first report. */
  progress: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Runs started: more than 1 when a node died and another took the job over. */
  attempts: number;
  credits_used: number | null;
  source: { type: 'upload'; filename: string | null; bytes: number } | { type: 'url'; url: string };
  callback_url: string | null;
  zero_retention: boolean;
  /** When completed: the transcript (json and verbose_json formats; see jobs.result() for every format). */
  result?: unknown;
  result_deleted?: boolean;
  /** When failed: the API's error object. */
  error?: { code: string; message: string; details?: Record<string, unknown> };
  webhook?: { id: string | null; state: 'none' | 'pending' | 'delivered' | 'failed'; attempts: JobWebhookAttempt[] };
  [extra: string]: unknown;
}

/** One page of GET /stt/jobs, newest first; next_cursor is null on the last page. */
export interface JobPage {
  jobs: Job[];
  next_cursor: string | null;
}

export interface CreateJobOptions extends Omit<TranscribeOptions, 'onRetry'> {
  /** The audio to upload (a path, bytes, a Blob or a stream), or... */
  file?: AudioSource;
  /** ...a public http(s) URL the server downloads the audio from. Exactly one of file and url. */
  url?: string;
  /** Where the server POSTs the finished job (a signed webhook, docs/jobs.md). */
  callback_url?: string;
  /** Keep no result on the server: only the webhook (callback_url) carries it, once. */
  zero_retention?: boolean;
  /**
   * Sent as the Idempotency-Key header (1-255 visible ASCII characters): the same key and body
   * within 24 hours answer the first job. When omitted, the client makes one per call, so its own
   * retries never create a second job.
   */
  idempotencyKey?: string;
  /** Called before each retry wait. */
  onRetry?: (attempt: number, delayMs: number) => void;
}

/** What jobs.create and friends accept as audio (the same inputs as the stt methods). */
export type AudioSource = string | Uint8Array | ArrayBuffer | Blob | NodeJS.ReadableStream;

export interface ListJobsOptions {
  /** Jobs per page (the server's default and bounds apply). */
  limit?: number;
  /** next_cursor from the previous page. */
  cursor?: string;
  status?: JobStatus;
}

export interface WaitOptions {
  /** Between two polls, ms (default 2000). */
  intervalMs?: number;
  /** Give up after this long, ms (default: wait forever), with a ParlaError TIMEOUT. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with the job after every poll (status, progress). */
  onPoll?: (job: Job) => void;
}
