// Query parameters of the native real-time stream (docs/realtime.md), validated before the upgrade,
// into the protocol-neutral live parameters (src/stt/live/params.ts).

import { parseRedactField } from '../stt/request.js';
import { ApiError } from '../errors.js';
import { parseTurnSettings, TURN_DEFAULTS, type TurnSettings } from '../stt/live/turns.js';
import { STT_MODELS, type SttModel } from '../registry/model-registry.js';
import { REALTIME_ENCODINGS, type RealtimeEncoding, type RealtimeParams } from '../stt/live/params.js';

/**
 * Defaults of the query parameters, as /stt/realtime/info reports them. endpointing is 10 ms as on
 * Deepgram: a final arrives as soon as the VAD (whose own hangover bridges 60-100 ms pauses) calls
 * the audio silent; clients that want whole sentences ask for 300-500 ms or use UtteranceEnd.
 */
export const REALTIME_DEFAULTS = {
  model: 'cipher-fast',
  encoding: 'linear16',
  sample_rate: 16000,
  interim_results: true,
  endpointing: 10,
  utterance_end_ms: 1000,
  punctuate: true,
  smart_format: true,
} as const;

function bool(q: URLSearchParams, name: string, def: boolean): boolean {
  const v = q.get(name);
  if (v === null || v === '') return def;
  if (/^(true|1)$/i.test(v)) return true;
  if (/^(false|0)$/i.test(v)) return false;
  throw new ApiError('INVALID_PARAMETER', { message: `${name} must be true or false.`, details: { field: name, provided: v } });
}

function int(q: URLSearchParams, name: string, def: number, min: number, max: number): number {
  const v = q.get(name);
  if (v === null || v === '') return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ApiError(name === 'sample_rate' ? 'INVALID_SAMPLE_RATE' : 'INVALID_PARAMETER', {
      message: `${name} must be a whole number from ${min} to ${max}.`,
      details: { field: name, provided: v },
    });
  }
  return Number(v);
}

/** `redact` given once as a list or repeated; bounded, as every query value. */
function redactRaw(q: URLSearchParams): string | undefined {
  const all = q.getAll('redact');
  if (all.length === 0) return undefined;
  const joined = all.join(',');
  if (joined.length > 200)
    throw new ApiError('INVALID_PARAMETER', { message: 'redact is longer than 200 characters.', details: { field: 'redact' } });
  return joined;
}

export function parseRealtimeParams(q: URLSearchParams): RealtimeParams {
  const model = q.get('model') ?? REALTIME_DEFAULTS.model;
  if (!(STT_MODELS as readonly string[]).includes(model)) {
    throw new ApiError('INVALID_MODEL', {
      message: `Unknown speech-to-text model "${model}".`,
      details: { field: 'model', provided: model, suggestions: [...STT_MODELS] },
    });
  }
  const encoding = q.get('encoding') ?? REALTIME_DEFAULTS.encoding;
  if (!(REALTIME_ENCODINGS as readonly string[]).includes(encoding)) {
    throw new ApiError('INVALID_FORMAT', {
      message: 'encoding must be linear16 (raw 16-bit little-endian PCM) or opus (Opus in Ogg or WebM).',
      details: { field: 'encoding', provided: encoding, suggestions: [...REALTIME_ENCODINGS] },
    });
  }
  const endpointingRaw = q.get('endpointing');
  const endpointing = endpointingRaw === 'false' ? 0 : int(q, 'endpointing', REALTIME_DEFAULTS.endpointing, 10, 10_000);
  return {
    model: model as SttModel,
    language: q.get('language') ?? undefined,
    encoding: encoding as RealtimeEncoding,
    sampleRate: int(q, 'sample_rate', REALTIME_DEFAULTS.sample_rate, 8000, 48000),
    interimResults: bool(q, 'interim_results', REALTIME_DEFAULTS.interim_results),
    endpointing,
    utteranceEndMs: int(q, 'utterance_end_ms', REALTIME_DEFAULTS.utterance_end_ms, 100, 10_000),
    punctuate: bool(q, 'punctuate', REALTIME_DEFAULTS.punctuate),
    smartFormat: bool(q, 'smart_format', REALTIME_DEFAULTS.smart_format),
    keywords: (q.get('keywords') ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .slice(0, 50),
    redaction: { redact: parseRedactField(redactRaw(q)), profanityFilter: bool(q, 'profanity_filter', false) },
  };
}

/**
 * turns=true (docs/realtime.md, "Turns"): TurnInfo messages from the session's turn layer, with
 * Flux's thresholds (eot_threshold, eager_eot_threshold, eot_timeout_ms); utterances then end with
 * turns (endpointing is off). null when not asked.
 */
export function parseTurnQuery(q: URLSearchParams): TurnSettings | null {
  if (!bool(q, 'turns', false)) {
    for (const name of ['eot_threshold', 'eager_eot_threshold', 'eot_timeout_ms']) {
      if (q.has(name)) throw new ApiError('INVALID_PARAMETER', { message: `${name} applies with turns=true.`, details: { field: name } });
    }
    return null;
  }
  const one = (name: string) => q.get(name) ?? undefined;
  return parseTurnSettings(
    { eot_threshold: one('eot_threshold'), eager_eot_threshold: one('eager_eot_threshold'), eot_timeout_ms: one('eot_timeout_ms') },
    TURN_DEFAULTS,
  );
}
