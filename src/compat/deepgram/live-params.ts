// The query parameters of Deepgram's live socket (WS /v1/listen, docs/compatibility.md) -> the
// parameters of Parla's live session (src/realtime/params.ts). What /v1/listen shares with the
// REST route (model mapping, language, punctuate, smart_format, keywords) is parsed by the shared
// listen parser; this file adds the live-only ones: encoding, sample_rate, channels,
// interim_results, endpointing, utterance_end_ms, vad_events. Deepgram's defaults, not the native
// socket's: no interim results, no punctuation, no UtteranceEnd unless utterance_end_ms is given.

import { ApiError } from '../../errors.js';
import type { Config } from '../../config.js';
import { STT_MODELS, type SttModel } from '../../registry/model-registry.js';
import type { RealtimeEncoding, RealtimeParams } from '../../realtime/params.js';

export interface DeepgramLiveParams {
  session: RealtimeParams;
  /** vad_events=true: SpeechStarted messages. */
  vadEvents: boolean;
  /** utterance_end_ms given: UtteranceEnd messages. */
  utteranceEnd: boolean;
  /** The model id the client asked for (Deepgram's or Parla's), told back in model_info. */
  requestedModel: string;
}

/**
 * Deepgram's encodings -> the session's decoders. Deepgram's `opus` and `ogg-opus` are Opus in a
 * container here (Ogg or WebM, as browsers record it); raw Opus packets are not accepted.
 */
const ENCODINGS: Record<string, RealtimeEncoding> = { linear16: 'linear16', opus: 'opus', 'ogg-opus': 'opus' };

/** Sample rates a linear16 stream may declare; audio is resampled to 16 kHz for recognition. */
const SAMPLE_RATE = { min: 8000, max: 48000, default: 16000 };
/** utterance_end_ms when not given (the session needs a number; no UtteranceEnd is sent then). */
const DEFAULT_UTTERANCE_END_MS = 1000;

function invalid(field: string, provided: string, message: string, suggestions?: string[]): ApiError {
  return new ApiError('INVALID_PARAMETER', { message, details: { field, provided: provided.slice(0, 100), ...(suggestions ? { suggestions } : {}) } });
}

/** One value per parameter: Deepgram's own parameters are single-valued (a repeat is an error). */
function one(q: URLSearchParams, name: string): string | null {
  const all = q.getAll(name);
  if (all.length > 1) throw invalid(name, all.join(','), `${name} was given ${all.length} times; give it once.`);
  return all[0] ?? null;
}

function bool(q: URLSearchParams, name: string, def: boolean): boolean {
  const v = one(q, name);
  if (v === null || v === '') return def;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw invalid(name, v, `${name} must be true or false.`);
}

function wholeNumber(name: string, v: string, min: number, max: number): number {
  // Digits only (no sign, exponent or fraction), and short: linear in the input, no huge numbers.
  if (v.length > 6 || !/^[0-9]+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw invalid(name, v, `${name} must be a whole number from ${min} to ${max}.`);
  }
  return Number(v);
}

/**
 * The parameters /v1/listen shares with the REST route. Minimal until the shared listen parser
 * (listen-params.ts) lands: the model through config's deepgram.sttModels table or as a Parla id.
 */
function parseCommon(q: URLSearchParams, config: Config): { model: SttModel; requestedModel: string; language: string | undefined; punctuate: boolean; smartFormat: boolean; keywords: string[] } {
  const requested = one(q, 'model') ?? 'cipher-fast';
  const mapped = config.product.deepgram.sttModels[requested] ?? requested;
  if (!(STT_MODELS as readonly string[]).includes(mapped)) {
    throw new ApiError('INVALID_MODEL', { message: `Unknown speech-to-text model "${requested.slice(0, 64)}".`, details: { field: 'model', provided: requested.slice(0, 100), suggestions: [...Object.keys(config.product.deepgram.sttModels), ...STT_MODELS] } });
  }
  const smartFormat = bool(q, 'smart_format', false);
  // Deepgram: keywords=word:boost, repeated; keyterm=phrase (Nova-3), repeated. The boost is not used.
  const keywords = [...q.getAll('keywords').map((k) => k.split(':')[0]!), ...q.getAll('keyterm')].map((k) => k.trim()).filter(Boolean).slice(0, 50);
  return {
    model: mapped as SttModel,
    requestedModel: requested,
    language: one(q, 'language') ?? undefined,
    // smart_format punctuates too (Deepgram's rule).
    punctuate: bool(q, 'punctuate', false) || smartFormat,
    smartFormat,
    keywords,
  };
}

export function parseDeepgramLiveParams(q: URLSearchParams, config: Config): DeepgramLiveParams {
  const common = parseCommon(q, config);
  const encodingRaw = one(q, 'encoding') ?? 'linear16';
  const encoding = Object.hasOwn(ENCODINGS, encodingRaw) ? ENCODINGS[encodingRaw]! : undefined;
  if (!encoding) {
    throw new ApiError('INVALID_FORMAT', { message: `encoding "${encodingRaw.slice(0, 32)}" is not served here; use linear16 (raw 16-bit little-endian PCM) or opus (Opus in Ogg or WebM).`, details: { field: 'encoding', provided: encodingRaw.slice(0, 100), suggestions: Object.keys(ENCODINGS) } });
  }
  const rateRaw = one(q, 'sample_rate');
  let sampleRate = SAMPLE_RATE.default;
  if (rateRaw !== null && rateRaw !== '') {
    if (rateRaw.length > 6 || !/^[0-9]+$/.test(rateRaw) || Number(rateRaw) < SAMPLE_RATE.min || Number(rateRaw) > SAMPLE_RATE.max) {
      throw new ApiError('INVALID_SAMPLE_RATE', { message: `sample_rate must be a whole number from ${SAMPLE_RATE.min} to ${SAMPLE_RATE.max}.`, details: { field: 'sample_rate', provided: rateRaw.slice(0, 100) } });
    }
    sampleRate = Number(rateRaw);
  }
  const channels = one(q, 'channels');
  if (channels !== null && channels !== '' && channels !== '1') throw invalid('channels', channels, 'Only mono audio is served here: channels must be 1.');
  if (bool(q, 'multichannel', false)) throw invalid('multichannel', 'true', 'multichannel is not served here: send one channel.');
  // endpointing: false, true (Deepgram's default, 10 ms) or milliseconds of silence.
  const endpointingRaw = one(q, 'endpointing');
  const endpointing = endpointingRaw === null || endpointingRaw === '' || endpointingRaw === 'true' ? 10 : endpointingRaw === 'false' ? 0 : wholeNumber('endpointing', endpointingRaw, 10, 10_000);
  const utteranceRaw = one(q, 'utterance_end_ms');
  const utteranceEnd = utteranceRaw !== null && utteranceRaw !== '';
  return {
    session: {
      model: common.model,
      language: common.language,
      encoding,
      sampleRate,
      interimResults: bool(q, 'interim_results', false),
      endpointing,
      utteranceEndMs: utteranceEnd ? wholeNumber('utterance_end_ms', utteranceRaw, 100, 10_000) : DEFAULT_UTTERANCE_END_MS,
      punctuate: common.punctuate,
      smartFormat: common.smartFormat,
      keywords: common.keywords,
    },
    vadEvents: bool(q, 'vad_events', false),
    utteranceEnd,
    requestedModel: common.requestedModel,
  };
}
