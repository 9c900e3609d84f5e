// Every call the dashboard makes: the dashboard's own JSON API (session, keys, usage, jobs) and the
// public speech API, both on this origin with the session cookie. State-changing requests and
// every speech API request carry the CSRF token; the speech API also learns the key mode from
// X-Parla-Mode, since the page holds no API key.

export type KeyMode = 'live' | 'test';

export interface Account {
  id: string;
  name: string;
  email: string;
  plan: string;
}

export interface Session {
  account: Account;
  csrf_token: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  mode: KeyMode;
  state: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  requests: number;
  credits_used: number;
}

export interface DailyUsage {
  day: string;
  tts: { requests: number; credits: number };
  stt: { requests: number; credits: number };
}

export interface Usage {
  mode: KeyMode;
  plan: string;
  period: { start: string; end: string; renewal_date: string };
  credits: { live: number; test: number };
  credits_used_this_period: number;
  characters: { used: number; limit: number; remaining: number };
  requests: { today: number; this_month: number };
  rate_limits: { requests_per_minute: number; requests_per_hour: number; concurrent_requests: number };
  daily: DailyUsage[];
}

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'canceled';

/** A transcription job as GET /dashboard/api/jobs lists it (docs/jobs.md; no result). */
export interface Job {
  id: string;
  status: JobStatus;
  mode: KeyMode;
  model: string | null;
  language: string | null;
  response_format: string | null;
  /** 0-1 while running, 1 when completed, null before the first report. */
  progress: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  attempts: number;
  credits_used: number | null;
  /** The audio's length, seconds, when the result is JSON (json, verbose_json). */
  audio_seconds: number | null;
  source: { type: 'upload'; filename: string | null; bytes: number } | { type: 'url'; url: string };
  callback_url: string | null;
  webhook_state: string | null;
  result_deleted: boolean;
  error: { code: string; message: string } | null;
}

/** One delivery attempt of a job's webhook (docs/jobs.md). */
export interface WebhookAttempt {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came (refused, timed out). */
  status: number | null;
  ok: boolean;
  error: string | null;
  duration_ms: number;
}

/** GET /dashboard/api/jobs/{id}: the listed fields, plus the result and the webhook's attempts. */
export interface JobDetail extends Job {
  zero_retention: boolean;
  /** A completed job's result in its response_format: a string (text, srt, vtt) or the JSON answer. */
  result: unknown;
  webhook: { state: string; attempts: WebhookAttempt[] } | null;
}

export interface JobPage {
  jobs: Job[];
  next_cursor: string | null;
}

/** An error answered in the service's error envelope (or a network failure, code NETWORK). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly resolution: string | undefined,
    readonly retryAfter: number | undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface ErrorEnvelope {
  error?: { code?: string; message?: string; resolution?: string };
}

async function toApiError(res: Response): Promise<ApiError> {
  const retry = Number(res.headers.get('Retry-After'));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined;
  let body: ErrorEnvelope = {};
  try {
    body = (await res.json()) as ErrorEnvelope;
  } catch {
    // Not JSON (a proxy's page, say): the status line is all there is.
  }
  const code = body.error?.code ?? `HTTP_${res.status}`;
  const message = body.error?.message ?? (res.statusText || `The server answered ${res.status}.`);
  return new ApiError(res.status, code, message, body.error?.resolution, retryAfter);
}

let csrfToken = '';
let accountId = '';
let onUnauthorized: () => void = () => {};

/**
 * The signed-in session (or null): its CSRF token is kept in memory only, never in storage a
 * script could read later.
 */
export function setRequestSession(session: Session | null): void {
  csrfToken = session?.csrf_token ?? '';
  accountId = session?.account.id ?? '';
}

/** Called when a request finds the session gone (expired, or signed out elsewhere). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/**
 * After a sign-in in another tab the shared cookie names a newer session with another CSRF
 * token: take it over and say whether the refused request may be sent again (it was refused
 * before anything happened). Another account in that session means this page is stale: reload.
 */
async function adoptNewerSession(): Promise<boolean> {
  const res = await fetch('/dashboard/api/session', { credentials: 'same-origin' }).catch(() => null);
  if (!res?.ok) return false;
  const session = (await res.json()) as Session;
  if (session.account.id !== accountId) {
    window.location.reload();
    return false;
  }
  if (session.csrf_token === csrfToken) return false;
  csrfToken = session.csrf_token;
  return true;
}

async function send(path: string, init: RequestInit = {}, keyMode?: KeyMode, retried = false): Promise<Response> {
  const headers = new Headers(init.headers);
  if (csrfToken) headers.set('X-CSRF-Token', csrfToken);
  if (keyMode) headers.set('X-Parla-Mode', keyMode);
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers, credentials: 'same-origin' });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'The server could not be reached. Check your connection and try again.', undefined, undefined);
  }
  if (!res.ok) {
    const err = await toApiError(res);
    if (res.status === 403 && err.code === 'CSRF_FAILED' && !retried && csrfToken && (await adoptNewerSession()))
      return send(path, init, keyMode, true);
    // A lost session (expired, or signed out in another tab) hands over to the sign-in page. Other
    // 401s from the speech API (the operator disabled the playground key, say) are shown inline.
    const signingIn = path === '/dashboard/api/session' && init.method === 'POST';
    const sessionLost = err.code === 'SESSION_REQUIRED' || (path.startsWith('/dashboard/api/') && !signingIn);
    if (res.status === 401 && sessionLost) onUnauthorized();
    throw err;
  }
  return res;
}

async function json<T>(path: string, init: RequestInit = {}, keyMode?: KeyMode): Promise<T> {
  const res = await send(path, init, keyMode);
  return (await res.json()) as T;
}

const jsonBody = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

export const dashboardApi = {
  /** The current session, or null when signed out. */
  async session(): Promise<Session | null> {
    try {
      return await json<Session>('/dashboard/api/session');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return null;
      throw err;
    }
  },
  signIn: (email: string, password: string) => json<Session>('/dashboard/api/session', jsonBody({ email, password })),
  signOut: async () => {
    await send('/dashboard/api/session', { method: 'DELETE' });
  },
  keys: () => json<{ keys: ApiKey[] }>('/dashboard/api/keys'),
  createKey: (name: string, mode: KeyMode) => json<{ key: ApiKey; api_key: string }>('/dashboard/api/keys', jsonBody({ name, mode })),
  revokeKey: (id: string) => json<{ key: ApiKey }>(`/dashboard/api/keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  usage: (mode: KeyMode) => json<Usage>(`/dashboard/api/usage?mode=${mode}`),
  jobs(opts: { limit: number; cursor: string | null; status: JobStatus | null }): Promise<JobPage> {
    const q = new URLSearchParams({ limit: String(opts.limit) });
    if (opts.cursor) q.set('cursor', opts.cursor);
    if (opts.status) q.set('status', opts.status);
    return json<JobPage>(`/dashboard/api/jobs?${q.toString()}`);
  },
  job: (id: string) => json<{ job: JobDetail }>(`/dashboard/api/jobs/${encodeURIComponent(id)}`),
  cancelJob: (id: string) => json<{ job: Job }>(`/dashboard/api/jobs/${encodeURIComponent(id)}`, { method: 'DELETE' }),
};

export interface TtsModel {
  id: string;
  name: string;
  description: string;
  languages: number;
  plans?: string[];
}

export interface Language {
  code: string;
  name: string;
  region: string;
}

export interface VoiceOption {
  /** Aura voices: the base voice, the same in every language (names are localized). */
  id?: string;
  name: string;
  gender: string;
  premium?: boolean;
}

type VoiceListing =
  | { voices: Array<{ id?: string; name: string; gender: string; premium?: boolean }> }
  | { voices_by_language: Record<string, Array<{ name: string; gender: string }>> };

export interface Credits {
  used: number | null;
  remaining: number | null;
}

function creditsOf(res: Response): Credits {
  const n = (h: string) => {
    const v = res.headers.get(h);
    return v === null || v === '' || !Number.isFinite(Number(v)) ? null : Number(v);
  };
  return { used: n('X-Credits-Used'), remaining: n('X-Credits-Remaining') };
}

export interface SpeechResult {
  audio: Blob;
  fileName: string;
  credits: Credits;
  processingMs: number | null;
}

/** A spoken word of the text and where it is on the audio, seconds. */
export interface SpokenWord {
  word: string;
  start: number;
  end: number;
}

export interface TimedSpeechResult extends SpeechResult {
  words: SpokenWord[];
}

const AUDIO_TYPES: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg', flac: 'audio/flac' };

export interface TranscriptionResult {
  contentType: string;
  /** Parsed JSON for json and verbose_json, the raw text for text, srt and vtt. */
  body: unknown;
  credits: Credits;
}

export interface SpeakRequest {
  text: string;
  voice: string;
  model: string;
  language: string;
  speed: number;
  pitch: number;
  format: string;
}

/** A browser token (POST /api/v1/auth/tokens): opens one live socket for the playground's key. */
export interface LiveToken {
  token: string;
  expires_at: string;
  expires_in: number;
}

export const speechApi = {
  /** A short-lived token for a live socket, so the page never holds a key (docs/realtime.md, "Browser tokens"). */
  liveToken: (mode: KeyMode) => json<LiveToken>('/api/v1/auth/tokens', jsonBody({ ttl_seconds: 60 }), mode),
  models: (mode: KeyMode) => json<{ models: TtsModel[] }>('/api/v1/models', {}, mode),
  languages: (model: string, mode: KeyMode) =>
    json<{ languages: Language[] }>(`/api/v1/languages?model=${encodeURIComponent(model)}`, {}, mode),
  async voices(model: string, language: string, mode: KeyMode): Promise<VoiceOption[]> {
    const listing = await json<VoiceListing>(
      `/api/v1/voices?model=${encodeURIComponent(model)}&language=${encodeURIComponent(language)}`,
      {},
      mode,
    );
    // Flash voices are listed per language; Aura voices arrive already named for the language.
    if ('voices_by_language' in listing) return listing.voices_by_language[language] ?? [];
    return listing.voices;
  },
  async speak(req: SpeakRequest, mode: KeyMode, signal?: AbortSignal): Promise<SpeechResult> {
    const res = await send('/api/v1/tts/generate', { ...jsonBody(req), ...(signal ? { signal } : {}) }, mode);
    const disposition = res.headers.get('Content-Disposition') ?? '';
    const fileName = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `parla-speech.${req.format}`;
    const elapsed = Number(res.headers.get('X-Processing-Time-Ms'));
    return {
      audio: await res.blob(),
      fileName,
      credits: creditsOf(res),
      processingMs: Number.isFinite(elapsed) && res.headers.has('X-Processing-Time-Ms') ? elapsed : null,
    };
  },
  /** POST /tts/generate/with-timestamps: the same file, and each word's start and end. */
  async speakWithTimestamps(req: SpeakRequest, mode: KeyMode, signal?: AbortSignal): Promise<TimedSpeechResult> {
    const res = await send('/api/v1/tts/generate/with-timestamps', { ...jsonBody(req), ...(signal ? { signal } : {}) }, mode);
    const body = (await res.json()) as { audio_base64: string; format: string; words: SpokenWord[] };
    const binary = atob(body.audio_base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const id = res.headers.get('X-Request-ID') ?? '';
    const elapsed = Number(res.headers.get('X-Processing-Time-Ms'));
    return {
      audio: new Blob([bytes], { type: AUDIO_TYPES[body.format] ?? 'application/octet-stream' }),
      fileName: `parla-${id.slice(4, 16) || 'speech'}.${body.format}`,
      credits: creditsOf(res),
      processingMs: Number.isFinite(elapsed) && res.headers.has('X-Processing-Time-Ms') ? elapsed : null,
      words: body.words,
    };
  },
  async transcribe(form: FormData, mode: KeyMode, signal?: AbortSignal): Promise<TranscriptionResult> {
    const res = await send('/api/v1/stt/transcribe', { method: 'POST', body: form, ...(signal ? { signal } : {}) }, mode);
    const contentType = res.headers.get('Content-Type') ?? '';
    const body: unknown = contentType.includes('json') ? await res.json() : await res.text();
    return { contentType, body, credits: creditsOf(res) };
  },
};
