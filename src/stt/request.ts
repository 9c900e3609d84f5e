// Reading and validating the multipart fields of the three batch endpoints (decisions #16):
// every field of docs/interface.md, typed, with the error code of the field at fault. Every endpoint
// takes model, language and response_format; the engine endpoints ignore the other engine's fields.

import { ApiError } from '../errors.js';
import { RESPONSE_FORMATS, type ResponseFormat } from './response-formats.js';
import type { SttEndpoint } from '../registry/model-registry.js';
import { REDACT_KINDS, type RedactKind, type RedactOptions } from './redact.js';

export const CIPHER_FIELDS = ['prompt', 'timestamp_granularities'] as const;
/** A known speaker's voice sample: 2-10 s, as OpenAI bounds it (the upper end allows a codec's padding). */
export const REFERENCE_SECONDS = { min: 2, max: 10, slack: 0.1 } as const;

export const LUCID_FIELDS = ['diarize', 'smart_format', 'punctuate', 'keywords'] as const;
// redact and profanity_filter work on the recognized words, whatever the engine (src/stt/redact.ts).
const COMMON_FIELDS = ['model', 'language', 'response_format', 'redact', 'profanity_filter'] as const;

/** The model used when none is sent: the endpoint's own engine on the Lucid endpoint. */
export const DEFAULT_MODEL: Record<SttEndpoint, string> = { universal: 'cipher-fast', cipher: 'cipher-fast', lucid: 'lucid-mono' };
const MAX_FIELD_LENGTH = 4000;

export interface SttRequest {
  model: string;
  language: string | undefined;
  responseFormat: ResponseFormat;
  prompt: string | undefined;
  granularities: Array<'word' | 'segment'>;
  diarize: boolean;
  smartFormat: boolean;
  punctuate: boolean;
  keywords: string[];
  /** redact (pci, ssn, numbers) and profanity_filter; absent: nothing redacted. */
  redaction?: RedactOptions;
}

/** `redact`: a comma-separated list (or a JSON array) of pci, ssn, numbers; `true` is numbers, `false` none. */
export function parseRedactField(v: string | undefined): RedactKind[] {
  if (v === undefined) return [];
  const kinds = new Set<RedactKind>();
  for (const raw of v.replace(/[[\]"]/g, '').split(',')) {
    const part = raw.trim().toLowerCase();
    if (part === '' || part === 'false') continue;
    const kind = part === 'true' ? 'numbers' : (REDACT_KINDS as readonly string[]).includes(part) ? (part as RedactKind) : undefined;
    if (!kind)
      throw new ApiError('INVALID_PARAMETER', {
        message: 'redact takes pci, ssn, numbers (or true for numbers), comma-separated.',
        details: { field: 'redact', provided: raw.trim().slice(0, 100), suggestions: [...REDACT_KINDS] },
      });
    kinds.add(kind);
  }
  return [...kinds];
}

function parseBool(field: string, v: string): boolean {
  if (/^(true|1|yes|on)$/i.test(v)) return true;
  if (/^(false|0|no|off)$/i.test(v)) return false;
  throw new ApiError('INVALID_PARAMETER', { message: `${field} must be true or false.`, details: { field, provided: v } });
}

/** Fields this endpoint reads; the other engine's fields are ignored on engine endpoints. */
export function acceptedFields(endpoint: SttEndpoint): Set<string> {
  const out = new Set<string>(COMMON_FIELDS);
  if (endpoint !== 'lucid') CIPHER_FIELDS.forEach((f) => out.add(f));
  if (endpoint !== 'cipher') LUCID_FIELDS.forEach((f) => out.add(f));
  return out;
}

export function parseSttFields(raw: Map<string, string>, endpoint: SttEndpoint): SttRequest {
  const accepted = acceptedFields(endpoint);
  const get = (f: string) => {
    if (!accepted.has(f)) return undefined;
    const v = raw.get(f);
    if (v !== undefined && v.length > MAX_FIELD_LENGTH)
      throw new ApiError('INVALID_PARAMETER', { message: `${f} is longer than ${MAX_FIELD_LENGTH} characters.`, details: { field: f } });
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const format = get('response_format') ?? 'json';
  if (!(RESPONSE_FORMATS as readonly string[]).includes(format)) {
    throw new ApiError('INVALID_FORMAT', {
      message: `response_format must be one of ${RESPONSE_FORMATS.join(', ')}.`,
      details: { field: 'response_format', provided: format, suggestions: [...RESPONSE_FORMATS] },
    });
  }
  const granularities: Array<'word' | 'segment'> = [];
  const g = get('timestamp_granularities');
  if (g !== undefined) {
    for (const part of g
      .replace(/[[\]"]/g, '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (part !== 'word' && part !== 'segment') {
        throw new ApiError('INVALID_PARAMETER', {
          message: 'timestamp_granularities must be "word" or "segment".',
          details: { field: 'timestamp_granularities', provided: g },
        });
      }
      granularities.push(part);
    }
    if (format !== 'verbose_json') {
      throw new ApiError('INVALID_PARAMETER', {
        message: 'timestamp_granularities requires response_format=verbose_json.',
        details: { field: 'timestamp_granularities', provided: g },
      });
    }
  }
  const bool = (f: string, def: boolean) => {
    const v = get(f);
    return v === undefined ? def : parseBool(f, v);
  };
  const prompt = get('prompt');
  // "word:2" (a boost intensity, as other services take it) is read as the word: boosts are uniform here.
  const keywordList = (get('keywords') ?? '')
    .split(',')
    .map((k) => k.replace(/:-?\d+(\.\d+)?$/, '').trim())
    .filter(Boolean);
  // The prompt names domain terms: its distinctive words are boosted like keywords.
  const promptWords = prompt ? prompt.split(/[^A-Za-z']+/).filter((w) => w.length >= 4) : [];
  return {
    model: get('model') ?? DEFAULT_MODEL[endpoint],
    language: get('language'),
    responseFormat: format as ResponseFormat,
    prompt,
    granularities,
    diarize: bool('diarize', false),
    smartFormat: bool('smart_format', true),
    punctuate: bool('punctuate', true),
    keywords: [...keywordList, ...promptWords].slice(0, 100),
    redaction: { redact: parseRedactField(get('redact')), profanityFilter: bool('profanity_filter', false) },
  };
}
