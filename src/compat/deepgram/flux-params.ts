// The query of Deepgram Flux's socket (WS /v2/listen, docs/compatibility.md, "Flux: WS /v2/listen")
// -> the live session's parameters and its turn settings (src/stt/live/turns.ts). `model` is
// required (flux-general-en), mapped by the same table as /v1/listen (`flux` -> a Parla model);
// audio as on /v1/listen (linear16 at 8-48 kHz, mulaw/alaw expanded by the edge, Opus in Ogg or
// WebM); eot_threshold, eager_eot_threshold, eot_timeout_ms, keyterm (repeatable) as Flux bounds
// them. Accepted and ignored: language_hint, mip_opt_out, tag. Anything Flux documents that Parla
// cannot do (redact, profanity_filter) is refused when on.

import { ApiError } from '../../errors.js';
import type { DeepgramMapping } from '../../config.js';
import { STT_MODELS, type SttModel } from '../../registry/model-registry.js';
import type { RealtimeEncoding, RealtimeParams } from '../../stt/live/params.js';
import { TURN_DEFAULTS, turnNumber, parseTurnSettings, type TurnSettings } from '../../stt/live/turns.js';
import { mapDeepgramModel, parseDeepgramBool } from './listen-params.js';

export interface FluxParams {
  session: RealtimeParams;
  turns: TurnSettings;
  keyterms: string[];
  requestedModel: string;
  expand: 'mulaw' | 'alaw' | null;
}

const ENCODINGS: Record<string, RealtimeEncoding> = {
  linear16: 'linear16',
  mulaw: 'linear16',
  alaw: 'linear16',
  opus: 'opus',
  'ogg-opus': 'opus',
};

function invalid(field: string, message: string, provided?: string): ApiError {
  return new ApiError('INVALID_PARAMETER', {
    message,
    details: { field, ...(provided === undefined ? {} : { provided: provided.slice(0, 100) }) },
  });
}

function single(q: URLSearchParams, name: string): string | undefined {
  const all = q.getAll(name);
  if (all.length > 1 && all.some((v) => v !== all[0])) throw invalid(name, `${name} was given more than once with different values.`);
  return all[0];
}

export function parseFluxParams(q: URLSearchParams, mapping: DeepgramMapping): FluxParams {
  const requestedModel = single(q, 'model');
  if (requestedModel === undefined || requestedModel === '')
    throw new ApiError('INVALID_MODEL', { message: 'model is required on /v2/listen (flux-general-en).', details: { field: 'model' } });
  const model = mapDeepgramModel(requestedModel, mapping.sttModels);
  if (!(STT_MODELS as readonly string[]).includes(model))
    throw new ApiError('INVALID_MODEL', {
      message: `The model "${requestedModel.slice(0, 100)}" maps to no speech-to-text model here.`,
      details: { field: 'model', provided: requestedModel.slice(0, 100) },
    });
  const encodingName = single(q, 'encoding') ?? 'linear16';
  const encoding = Object.hasOwn(ENCODINGS, encodingName) ? ENCODINGS[encodingName] : undefined;
  if (encoding === undefined) {
    throw new ApiError('INVALID_FORMAT', {
      message: 'encoding must be linear16, mulaw, alaw, opus or ogg-opus.',
      details: { field: 'encoding', provided: encodingName.slice(0, 100), suggestions: Object.keys(ENCODINGS) },
    });
  }
  const expand = encodingName === 'mulaw' || encodingName === 'alaw' ? encodingName : null;
  const rate = single(q, 'sample_rate');
  const sampleRate = rate === undefined ? (expand ? 8000 : 16000) : turnNumber('sample_rate', rate, 8000, 48000, true);
  for (const off of ['redact', 'profanity_filter']) {
    const v = single(q, off);
    if (v !== undefined && v !== '' && v !== 'false') throw invalid(off, `${off} is not supported here.`, v);
  }
  const numerals = single(q, 'numerals');
  const smartFormat = numerals === undefined || numerals === '' ? true : parseDeepgramBool('numerals', numerals);
  const keyterms = q
    .getAll('keyterm')
    .map((k) => k.trim())
    .filter(Boolean);
  if (keyterms.length > 100 || keyterms.some((k) => k.length > 100))
    throw invalid('keyterm', 'At most 100 keyterms of at most 100 characters.');
  const turns = parseTurnSettings(
    {
      eot_threshold: single(q, 'eot_threshold'),
      eager_eot_threshold: single(q, 'eager_eot_threshold'),
      eot_timeout_ms: single(q, 'eot_timeout_ms'),
    },
    TURN_DEFAULTS,
  );
  return {
    session: {
      model: model as SttModel,
      language: undefined,
      encoding,
      sampleRate,
      // Turns replace endpointing and interim results (the turn layer reads the words itself).
      interimResults: false,
      endpointing: 0,
      utteranceEndMs: 10_000,
      punctuate: true,
      smartFormat,
      keywords: keyterms.slice(0, 50),
    },
    turns,
    keyterms,
    requestedModel,
    expand,
  };
}
