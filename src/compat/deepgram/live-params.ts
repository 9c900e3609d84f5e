// The query of Deepgram's live socket (WS /v1/listen, docs/compatibility.md) -> the parameters of
// Parla's live session (src/stt/live/params.ts). The shared listen parser (listen-params.ts, also
// used by the REST route) reads and validates everything, with Deepgram's defaults (no interim
// results, no punctuation, endpointing 10 ms, no UtteranceEnd or SpeechStarted unless asked); this
// file adds what only a live stream decides: which encodings and rates a stream can carry, and
// what a stream cannot do (several channels, diarization, a callback) refused instead of ignored.

import { ApiError } from '../../errors.js';
import type { DeepgramMapping } from '../../config.js';
import { STT_MODELS, type SttModel } from '../../registry/model-registry.js';
import type { RealtimeEncoding, RealtimeParams } from '../../stt/live/params.js';
import { parseListenParams } from './listen-params.js';
import type { RedactOptions } from '../../stt/redact.js';

export interface DeepgramLiveParams {
  session: RealtimeParams;
  /** vad_events=true: SpeechStarted messages. */
  vadEvents: boolean;
  /** utterance_end_ms given: UtteranceEnd messages. */
  utteranceEnd: boolean;
  /** The model id the client asked for (Deepgram's or Parla's). */
  requestedModel: string;
  /** G.711 bytes the edge expands to linear16 before the session (which then sees linear16 at the same rate). */
  expand: 'mulaw' | 'alaw' | null;
  /** redact / profanity_filter: applied to final results by the output (listen-output.ts). */
  redaction: RedactOptions;
}

/**
 * Deepgram's encodings -> the session's decoders. No encoding: a container (Ogg, WebM, WAV, MP3,
 * FLAC), told apart by its first bytes and decoded as it arrives, as Deepgram does (it tells
 * clients to leave `encoding` out for containerized audio, as a browser's MediaRecorder sends it);
 * raw audio without `encoding` is undecodable there and here: close 1008 DATA-0000, nothing billed
 * (decision #43). Deepgram's `opus` and `ogg-opus` are Opus in a container here (Ogg or WebM);
 * raw Opus packets are not accepted. `mulaw` and `alaw` (telephone audio, 8 kHz unless told) are
 * expanded to linear16 by the edge.
 */
const ENCODINGS: Record<string, RealtimeEncoding> = {
  linear16: 'linear16',
  opus: 'opus',
  'ogg-opus': 'opus',
  mulaw: 'linear16',
  alaw: 'linear16',
};
const G711_DEFAULT_RATE = 8000;

/** Rates a linear16 stream may declare (as on the native socket); audio is resampled to 16 kHz. */
const SAMPLE_RATE = { min: 8000, max: 48000, default: 16000 };
/** utterance_end_ms when not given (the session needs a number; no UtteranceEnd is sent then). */
const DEFAULT_UTTERANCE_END_MS = 1000;

function refuse(field: string, message: string, provided: string): ApiError {
  return new ApiError('INVALID_PARAMETER', { message, details: { field, provided: provided.slice(0, 100) } });
}

export function parseDeepgramLiveParams(q: URLSearchParams, mapping: DeepgramMapping): DeepgramLiveParams {
  const p = parseListenParams(q, mapping, 'live');
  // The table is operator configuration: a target that is not a Parla model is refused, not trusted.
  if (!(STT_MODELS as readonly string[]).includes(p.model)) {
    throw new ApiError('INVALID_MODEL', {
      message: `The model "${p.requestedModel.slice(0, 100)}" maps to "${p.model.slice(0, 100)}", which is not a speech-to-text model here.`,
      details: { field: 'model', provided: p.requestedModel.slice(0, 100), suggestions: [...STT_MODELS] },
    });
  }
  const encodingName = p.encoding ?? 'container';
  const encoding = p.encoding === undefined ? 'container' : Object.hasOwn(ENCODINGS, encodingName) ? ENCODINGS[encodingName] : undefined;
  if (encoding === undefined) {
    throw new ApiError('INVALID_FORMAT', {
      message: `encoding "${encodingName.slice(0, 32)}" is not served on the live socket; use linear16 (raw 16-bit little-endian PCM), mulaw, alaw, or opus (Opus in Ogg or WebM).`,
      details: { field: 'encoding', provided: encodingName.slice(0, 100), suggestions: Object.keys(ENCODINGS) },
    });
  }
  const expand = encodingName === 'mulaw' || encodingName === 'alaw' ? encodingName : null;
  const sampleRate = p.sampleRate ?? (expand ? G711_DEFAULT_RATE : SAMPLE_RATE.default);
  // A sample_rate beside a container is the container's business, but an impossible one is still refused.
  if (
    (encoding === 'linear16' || (encoding === 'container' && p.sampleRate !== undefined)) &&
    (sampleRate < SAMPLE_RATE.min || sampleRate > SAMPLE_RATE.max)
  ) {
    throw new ApiError('INVALID_SAMPLE_RATE', {
      message: `sample_rate must be a whole number from ${SAMPLE_RATE.min} to ${SAMPLE_RATE.max}.`,
      details: { field: 'sample_rate', provided: String(sampleRate) },
    });
  }
  if (p.channels !== undefined && p.channels !== 1)
    throw refuse('channels', 'The live socket takes one channel: channels must be 1.', String(p.channels));
  if (p.diarize) throw refuse('diarize', 'diarize is not supported on the live socket (it is on POST /v1/listen).', 'true');
  if (p.callback !== undefined)
    throw refuse('callback', 'callback is not supported on the live socket: results come over the socket.', p.callback);
  return {
    session: {
      model: p.model as SttModel,
      // language=multi / detect_language: a stream recognizes the model's language; it does not detect.
      language: p.language,
      encoding,
      sampleRate,
      interimResults: p.interimResults,
      endpointing: p.endpointing,
      utteranceEndMs: p.utteranceEndMs ?? DEFAULT_UTTERANCE_END_MS,
      punctuate: p.punctuate,
      smartFormat: p.smartFormat,
      keywords: p.keywords.slice(0, 50),
    },
    vadEvents: p.vadEvents,
    utteranceEnd: p.utteranceEndMs !== undefined,
    requestedModel: p.requestedModel,
    expand,
    redaction: p.redaction,
  };
}
