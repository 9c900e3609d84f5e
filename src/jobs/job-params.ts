// A job's batch fields: validated at the edge by the batch endpoints' own parser
// (parseSttFields, src/stt/request.ts), stored with the job under their API names (the job JSON
// shows model, language and response_format from them), and read back by the runner.

import type { SttRequest } from '../stt/request.js';
import { cleanTtsText } from '../tts/clean-text.js';
import type { ResponseFormat } from '../stt/response-formats.js';

export type JobParams = {
  model: string;
  language: string | null;
  response_format: ResponseFormat;
  prompt: string | null;
  timestamp_granularities: Array<'word' | 'segment'>;
  diarize: boolean;
  smart_format: boolean;
  punctuate: boolean;
  keywords: string[];
  /** Absent on jobs made before redaction existed: nothing redacted. */
  redact?: Array<'pci' | 'ssn' | 'numbers'>;
  profanity_filter?: boolean;
};

/**
 * The fields as stored. Free text (prompt, keywords) loses what the native endpoints remove from
 * text (control characters, lone surrogates, noncharacters: src/tts/clean-text.ts), as it would
 * reach no engine anyway; PostgreSQL's JSONB cannot even hold a NUL or a lone surrogate (issue 30).
 */
export function paramsOf(o: SttRequest): JobParams {
  const prompt = o.prompt === undefined ? null : cleanTtsText(o.prompt);
  return {
    model: o.model,
    language: o.language ?? null,
    response_format: o.responseFormat,
    prompt,
    timestamp_granularities: o.granularities,
    diarize: o.diarize,
    smart_format: o.smartFormat,
    punctuate: o.punctuate,
    keywords: o.keywords.map((k) => cleanTtsText(k).trim()).filter((k) => k !== ''),
    redact: [...(o.redaction?.redact ?? [])],
    profanity_filter: o.redaction?.profanityFilter ?? false,
  };
}

/** The stored params back as the STT service's request (they were validated when the job was made). */
export function requestOf(params: Record<string, unknown>): SttRequest {
  const p = params as Partial<JobParams>;
  return {
    model: String(p.model),
    language: typeof p.language === 'string' ? p.language : undefined,
    responseFormat: (p.response_format ?? 'json') as ResponseFormat,
    prompt: typeof p.prompt === 'string' ? p.prompt : undefined,
    granularities: Array.isArray(p.timestamp_granularities) ? p.timestamp_granularities : [],
    diarize: p.diarize === true,
    smartFormat: p.smart_format !== false,
    punctuate: p.punctuate !== false,
    keywords: Array.isArray(p.keywords) ? p.keywords.map(String) : [],
    redaction: {
      redact: Array.isArray(p.redact)
        ? p.redact.filter((k): k is 'pci' | 'ssn' | 'numbers' => k === 'pci' || k === 'ssn' || k === 'numbers')
        : [],
      profanityFilter: p.profanity_filter === true,
    },
  };
}
