// The OpenAI Realtime transcription session's configuration (GA shape, as the `openai` package's
// RealtimeTranscriptionSessionCreateRequest types it): what `session.update` may set, checked
// field by field, and the session object Parla answers in `session.created` / `session.updated`
// and in `client_secrets` (docs/compatibility.md, "Realtime: WS /v1/realtime"). Only the fields of
// an update that are present change (OpenAI's rule); `turn_detection: null` turns server VAD off;
// `semantic_vad` ends an item when Parla's turn layer ends the turn (src/stt/live/turns.ts).

import { ApiError } from '../../../errors.js';

export const INPUT_FORMATS = ['audio/pcm', 'audio/pcmu', 'audio/pcma'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Sample rate of each format as sent (audio/pcm is 24 kHz only, as on OpenAI; G.711 is 8 kHz). */
export const FORMAT_RATE: Record<InputFormat, number> = { 'audio/pcm': 24000, 'audio/pcmu': 8000, 'audio/pcma': 8000 };

export interface ServerVad {
  type: 'server_vad';
  threshold: number;
  prefix_padding_ms: number;
  silence_duration_ms: number;
}

export const EAGERNESS = ['low', 'medium', 'high', 'auto'] as const;
export type Eagerness = (typeof EAGERNESS)[number];

export interface SemanticVad {
  type: 'semantic_vad';
  eagerness: Eagerness;
}

/**
 * The turn layer's settings for an eagerness (decision #62's confidence): `high` ends a turn at
 * the lowest threshold Flux allows, `low` at the highest; the timeouts are OpenAI's documented
 * longest waits (8, 4, 2 s; `auto` is `medium`).
 */
export const EAGERNESS_TURNS: Record<Eagerness, { eotThreshold: number; eagerEotThreshold: null; eotTimeoutMs: number }> = {
  low: { eotThreshold: 0.9, eagerEotThreshold: null, eotTimeoutMs: 8000 },
  medium: { eotThreshold: 0.7, eagerEotThreshold: null, eotTimeoutMs: 4000 },
  auto: { eotThreshold: 0.7, eagerEotThreshold: null, eotTimeoutMs: 4000 },
  high: { eotThreshold: 0.5, eagerEotThreshold: null, eotTimeoutMs: 2000 },
};

export interface TranscriptionConfig {
  format: InputFormat;
  /** The transcription model as the client named it (mapped to a Parla model by the edge). */
  model: string;
  language: string | null;
  prompt: string;
  noiseReduction: { type: 'near_field' | 'far_field' } | null;
  turnDetection: ServerVad | SemanticVad | null;
  include: string[];
}

/** OpenAI's server_vad defaults. */
export const SERVER_VAD_DEFAULTS: ServerVad = { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 };

export function defaultConfig(model: string): TranscriptionConfig {
  return {
    format: 'audio/pcm',
    model,
    language: null,
    prompt: '',
    noiseReduction: null,
    turnDetection: { ...SERVER_VAD_DEFAULTS },
    include: [],
  };
}

const MAX_PROMPT = 4096;

function bad(param: string, message: string): ApiError {
  return new ApiError('INVALID_PARAMETER', { message, details: { field: param } });
}

function object(v: unknown, param: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad(param, `${param} must be an object.`);
  return v as Record<string, unknown>;
}

function num(v: unknown, param: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
    throw bad(param, `${param} must be a number from ${min} to ${max}.`);
  return v;
}

/**
 * The configuration after an update's `session` object, or the ApiError to send back as an
 * `error` event (param names the offending field as OpenAI does: `session.audio.input.format.type`).
 * The current configuration is not changed when the update is refused.
 */
export function applyUpdate(current: TranscriptionConfig, raw: unknown): TranscriptionConfig {
  const s = object(raw, 'session');
  const next: TranscriptionConfig = { ...current, turnDetection: current.turnDetection && { ...current.turnDetection } };
  if (s.type !== undefined && s.type !== 'transcription') {
    throw bad(
      'session.type',
      'This server serves transcription sessions only: set session.type to "transcription" (speech-to-speech "realtime" sessions are not available).',
    );
  }
  if (s.include !== undefined) {
    if (!Array.isArray(s.include) || s.include.length > 4 || s.include.some((i) => i !== 'item.input_audio_transcription.logprobs')) {
      throw bad('session.include', 'session.include may only hold "item.input_audio_transcription.logprobs".');
    }
    next.include = [...(s.include as string[])];
  }
  const audio = s.audio === undefined ? undefined : object(s.audio, 'session.audio');
  const input = audio?.input === undefined ? undefined : object(audio.input, 'session.audio.input');
  if (!input) return next;
  if (input.format !== undefined) {
    const f = object(input.format, 'session.audio.input.format');
    const type = f.type ?? 'audio/pcm';
    if (!(INPUT_FORMATS as readonly unknown[]).includes(type))
      throw bad('session.audio.input.format.type', `session.audio.input.format.type must be one of ${INPUT_FORMATS.join(', ')}.`);
    if (f.rate !== undefined && !(type === 'audio/pcm' && f.rate === 24000))
      throw bad('session.audio.input.format.rate', 'audio/pcm is 24000 Hz only (G.711 formats take no rate).');
    next.format = type as InputFormat;
  }
  if (input.transcription !== undefined && input.transcription !== null) {
    const t = object(input.transcription, 'session.audio.input.transcription');
    if (t.model !== undefined) {
      if (typeof t.model !== 'string' || t.model.length === 0 || t.model.length > 100)
        throw bad('session.audio.input.transcription.model', 'session.audio.input.transcription.model must be a model name.');
      next.model = t.model;
    }
    if (t.language !== undefined) {
      if (t.language !== null && (typeof t.language !== 'string' || t.language.length > 35))
        throw bad(
          'session.audio.input.transcription.language',
          'session.audio.input.transcription.language must be a language code such as "en".',
        );
      next.language = t.language === '' ? null : (t.language as string | null);
    }
    if (t.prompt !== undefined) {
      if (typeof t.prompt !== 'string' || t.prompt.length > MAX_PROMPT)
        throw bad(
          'session.audio.input.transcription.prompt',
          `session.audio.input.transcription.prompt must be a string of at most ${MAX_PROMPT} characters.`,
        );
      next.prompt = t.prompt;
    }
  }
  if (input.noise_reduction !== undefined) {
    if (input.noise_reduction === null) next.noiseReduction = null;
    else {
      const type = object(input.noise_reduction, 'session.audio.input.noise_reduction').type;
      if (type !== 'near_field' && type !== 'far_field')
        throw bad('session.audio.input.noise_reduction.type', 'noise_reduction.type must be near_field or far_field.');
      next.noiseReduction = { type };
    }
  }
  if (input.turn_detection !== undefined) next.turnDetection = turnDetection(input.turn_detection, next.turnDetection);
  return next;
}

function turnDetection(raw: unknown, current: ServerVad | SemanticVad | null): ServerVad | SemanticVad | null {
  if (raw === null) return null;
  const p = 'session.audio.input.turn_detection';
  const t = object(raw, p);
  if (t.type === 'semantic_vad') {
    const eagerness = t.eagerness ?? (current?.type === 'semantic_vad' ? current.eagerness : 'auto');
    if (!(EAGERNESS as readonly unknown[]).includes(eagerness))
      throw bad(`${p}.eagerness`, `${p}.eagerness must be one of ${EAGERNESS.join(', ')}.`);
    return { type: 'semantic_vad', eagerness: eagerness as Eagerness };
  }
  if (t.type !== 'server_vad')
    throw bad(`${p}.type`, `${p}.type must be "server_vad" or "semantic_vad" (or turn_detection null: the client commits).`);
  const base = current?.type === 'server_vad' ? current : SERVER_VAD_DEFAULTS;
  return {
    type: 'server_vad',
    threshold: t.threshold === undefined ? base.threshold : num(t.threshold, `${p}.threshold`, 0, 1),
    prefix_padding_ms:
      t.prefix_padding_ms === undefined
        ? base.prefix_padding_ms
        : Math.round(num(t.prefix_padding_ms, `${p}.prefix_padding_ms`, 0, 10_000)),
    // The native socket's endpointing range (src/realtime/params.ts): 10 ms to 10 s.
    silence_duration_ms:
      t.silence_duration_ms === undefined
        ? base.silence_duration_ms
        : Math.round(num(t.silence_duration_ms, `${p}.silence_duration_ms`, 10, 10_000)),
  };
}

/** The session object of session.created / session.updated / client_secrets. */
export function renderSession(id: string, c: TranscriptionConfig, expiresAt: number): Record<string, unknown> {
  return {
    type: 'transcription',
    object: 'realtime.transcription_session',
    id,
    expires_at: expiresAt,
    audio: {
      input: {
        format: c.format === 'audio/pcm' ? { type: 'audio/pcm', rate: 24000 } : { type: c.format },
        transcription: { model: c.model, language: c.language, prompt: c.prompt },
        noise_reduction: c.noiseReduction,
        turn_detection: c.turnDetection,
      },
    },
    include: c.include,
  };
}
