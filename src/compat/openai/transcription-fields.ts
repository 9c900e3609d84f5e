// OpenAI's current transcription fields (the gpt-transcribe contract, docs/compatibility.md "OpenAI"):
// languages[], keywords[], include[], chunking_strategy, known_speaker_names[] /
// known_speaker_references[] (known-speakers.ts), and response_format=diarized_json. Read from the
// multipart parts as the official SDK sends them (arrays as repeated `name[]` parts, an object as
// `name[key]` parts) or as a curl user writes them (one part holding a JSON array or object). Every field OpenAI defines
// is either honoured or refused by name: none is ignored in silence.

import { ApiError } from '../../errors.js';
import type { CutRules } from '../../stt/long-audio/plan.js';
import { parseKnownSpeakers, type KnownSpeaker } from './known-speakers.js';

/** OpenAI's limits: keywords and languages are short lists of short strings. */
const MAX_KEYWORDS = 100;
const MAX_KEYWORD_LENGTH = 100;
const MAX_LANGUAGES = 10;

export interface OpenAiTranscriptionFields {
  /** One language asked for (language, or languages with one entry); undefined: detect. */
  language: string | undefined;
  /** languages[] as sent (the answer reports the detected one among them). */
  languages: string[] | undefined;
  keywords: string[];
  logprobs: boolean;
  diarized: boolean;
  /** chunking_strategy: cut the recording at pauses (with the client's rules for server_vad). */
  chunking: { rules: CutRules } | undefined;
  /** known_speaker_names[] with the bytes of their known_speaker_references[] (not yet decoded). */
  knownSpeakers: KnownSpeaker[];
}

const invalid = (field: string, message: string, provided?: string) =>
  new ApiError('INVALID_PARAMETER', {
    message,
    details: { field, ...(provided !== undefined ? { provided: provided.slice(0, 200) } : {}) },
  });

/**
 * The items of an array field: every `name[]` and `name` part in order, a lone part holding a JSON
 * array read as that array (a curl user's `-F 'keywords=["a","b"]'`).
 */
export function arrayField(values: Map<string, string[]>, name: string): string[] | undefined {
  const parts = [...(values.get(`${name}[]`) ?? []), ...(values.get(name) ?? [])];
  if (parts.length === 0) return undefined;
  if (parts.length === 1 && parts[0]!.trim().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(parts[0]!);
    } catch {
      throw invalid(name, `${name} is not a JSON array of strings.`, parts[0]);
    }
    if (!Array.isArray(parsed) || parsed.some((v) => typeof v !== 'string'))
      throw invalid(name, `${name} must be an array of strings.`, parts[0]);
    return parsed as string[];
  }
  return parts;
}

function parseLanguages(values: Map<string, string[]>, language: string | undefined): string[] | undefined {
  const languages = arrayField(values, 'languages');
  if (languages === undefined) return undefined;
  if (language !== undefined && language.trim() !== '') throw invalid('languages', 'Send language or languages, not both.');
  if (languages.length === 0 || languages.length > MAX_LANGUAGES)
    throw invalid('languages', `languages must list 1 to ${MAX_LANGUAGES} language codes.`);
  for (const l of languages) {
    // ISO-639-1 as OpenAI asks, with the region forms Parla's native API takes (en-US).
    if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(l))
      throw invalid('languages', `"${l.slice(0, 50)}" is not a language code (ISO-639-1, e.g. en).`, l);
  }
  return languages.map((l) => l.toLowerCase());
}

function parseKeywords(values: Map<string, string[]>): string[] {
  const keywords = arrayField(values, 'keywords') ?? [];
  if (keywords.length > MAX_KEYWORDS) throw invalid('keywords', `keywords may list at most ${MAX_KEYWORDS} words or phrases.`);
  for (const k of keywords) {
    // Literal strings, as OpenAI takes them: no markup, no line breaks.
    if (/[<>\r\n]/.test(k)) throw invalid('keywords', 'keywords must be literal words or phrases: <, >, CR and LF are not allowed.', k);
    if (k.trim() === '' || k.length > MAX_KEYWORD_LENGTH)
      throw invalid('keywords', `Each keyword must have 1 to ${MAX_KEYWORD_LENGTH} characters.`, k);
  }
  return keywords.map((k) => k.trim());
}

function parseInclude(values: Map<string, string[]>, format: string): boolean {
  const include = arrayField(values, 'include');
  if (include === undefined) return false;
  for (const item of include) {
    if (item !== 'logprobs') throw invalid('include', `include may hold "logprobs" only, not "${item.slice(0, 50)}".`, item);
  }
  // As OpenAI: log-probabilities come with the json answer (and the stream's events).
  if (include.length > 0 && format !== 'json') throw invalid('include', 'include=logprobs requires response_format=json.', format);
  return include.length > 0;
}

/** A number field of server_vad, within its range (undefined when not sent). */
function vadNumber(raw: unknown, name: string, min: number, max: number): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < min || n > max)
    throw invalid('chunking_strategy', `chunking_strategy.${name} must be a number from ${min} to ${max}.`, String(raw));
  return n;
}

/**
 * chunking_strategy: "auto" (Parla's own cutting rules) or server_vad with its parameters, sent as
 * a JSON object or as the SDK's `chunking_strategy[type]`... parts. server_vad's threshold is
 * Silero's threshold, or picks WebRTC's VAD mode (0-3) when that one cuts; silence_duration_ms
 * the shortest pause to cut in, prefix_padding_ms how much
 * audio before a cut each side hears (docs/compatibility.md).
 */
function parseChunking(values: Map<string, string[]>): { rules: CutRules } | undefined {
  let obj: Record<string, unknown> | undefined;
  const whole = values.get('chunking_strategy');
  const keys = [...values.keys()].filter((k) => k.startsWith('chunking_strategy['));
  if (whole !== undefined) {
    if (whole.length > 1 || keys.length > 0) throw invalid('chunking_strategy', 'chunking_strategy was sent more than once.');
    const v = whole[0]!.trim();
    if (v === 'auto') return { rules: {} };
    if (!v.startsWith('{')) throw invalid('chunking_strategy', 'chunking_strategy must be "auto" or a server_vad object.', v);
    try {
      const parsed: unknown = JSON.parse(v);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      obj = parsed as Record<string, unknown>;
    } catch {
      throw invalid('chunking_strategy', 'chunking_strategy is not valid JSON.', v);
    }
  } else if (keys.length > 0) {
    obj = Object.create(null) as Record<string, unknown>;
    for (const k of keys) {
      const m = /^chunking_strategy\[([a-z_]{1,40})\]$/.exec(k);
      const got = values.get(k)!;
      if (!m || got.length > 1)
        throw invalid('chunking_strategy', `chunking_strategy has an unknown or repeated part "${k.slice(0, 60)}".`);
      obj[m[1]!] = got[0];
    }
  } else return undefined;
  const allowed = new Set(['type', 'threshold', 'prefix_padding_ms', 'silence_duration_ms']);
  for (const k of Object.keys(obj))
    if (!allowed.has(k))
      throw invalid(
        'chunking_strategy',
        `chunking_strategy has no field "${k.slice(0, 40)}" (type, threshold, prefix_padding_ms, silence_duration_ms).`,
      );
  if (obj.type !== 'server_vad') throw invalid('chunking_strategy', 'chunking_strategy.type must be "server_vad".', String(obj.type));
  const threshold = vadNumber(obj.threshold, 'threshold', 0, 1);
  const padding = vadNumber(obj.prefix_padding_ms, 'prefix_padding_ms', 0, 5000);
  const silence = vadNumber(obj.silence_duration_ms, 'silence_duration_ms', 20, 10000);
  const rules: CutRules = {};
  // A higher threshold asks for surer speech: Silero's own probability threshold when Silero cuts;
  // WebRTC's more aggressive modes when it does (0.5 is mode 2, Parla's own). Decision #72.
  if (threshold !== undefined) {
    rules.threshold = threshold;
    rules.vadMode = Math.min(3, Math.floor(threshold * 4));
  }
  if (silence !== undefined) rules.minPauseSeconds = silence / 1000;
  if (padding !== undefined) rules.pauseOverlapSeconds = padding / 1000;
  return { rules };
}

/** OpenAI's newer fields of a transcription request; `format` is the response_format sent. */
export function parseOpenAiTranscriptionFields(
  values: Map<string, string[]>,
  fields: Map<string, string>,
  format: string,
): OpenAiTranscriptionFields {
  const language = fields.get('language');
  const languages = parseLanguages(values, language);
  return {
    language: languages?.length === 1 ? languages[0] : language,
    languages,
    keywords: parseKeywords(values),
    logprobs: parseInclude(values, format),
    diarized: format === 'diarized_json',
    chunking: parseChunking(values),
    knownSpeakers: parseKnownSpeakers(arrayField(values, 'known_speaker_names'), arrayField(values, 'known_speaker_references'), format),
  };
}
