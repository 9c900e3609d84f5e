// Deepgram's /v1/listen query parameters -> one validated, plain set of options, for both the
// prerecorded route (POST /v1/listen) and the live socket (WS /v1/listen). Pure functions: no I/O,
// linear in the query's length (no regular expressions on user text). What is supported, what is
// accepted and ignored, what is refused and the model table: docs/compatibility.md, "Deepgram".

import type { DeepgramMapping } from '../../config.js';
import { ApiError } from '../../errors.js';
import { STT_MODELS } from '../../registry/model-registry.js';
import type { RedactKind, RedactOptions } from '../../stt/redact.js';
import { own } from '../../domain/lookup.js';
import { familyLookup } from '../../edge/model-family.js';

export type ListenMode = 'prerecorded' | 'live';

/** Deepgram's documented default model (no `model` sent). */
export const DEEPGRAM_DEFAULT_MODEL = 'base';
/** Deepgram's default utterance split: a pause this long (seconds) starts a new utterance. */
export const DEFAULT_UTT_SPLIT = 0.8;
/** Longest accepted value of any one parameter; more boosted terms than this is a 400. */
const MAX_VALUE_LENGTH = 2000;
const MAX_TERMS = 100;

export interface ListenParams {
  /** The model as the client named it (or Deepgram's default), for the answer's metadata. */
  requestedModel: string;
  /** The Parla STT product model it maps to (checked against the registry by the service). */
  model: string;
  /** The language to recognize; undefined: detect it (detect_language=true or language=multi). */
  language: string | undefined;
  /** The client asked for detection: the answer carries detected_language. */
  detectLanguage: boolean;
  /** Punctuation and capitals (punctuate, or implied by smart_format). */
  punctuate: boolean;
  /** Parla's smart format (smart_format or numerals: numbers, currency, dates, times). */
  smartFormat: boolean;
  diarize: boolean;
  /** results.utterances in the answer (prerecorded). */
  utterances: boolean;
  /** Seconds of pause that split utterances. */
  uttSplit: number;
  /** alternatives[0].paragraphs in the answer (prerecorded). */
  paragraphs: boolean;
  /** keywords (intensifier dropped; negative ones, which ask to suppress, are left out) and keyterm. */
  keywords: string[];
  /** `tag` values: echoed in metadata.tags. */
  tags: string[];
  /** Deepgram's async mode (prerecorded): the answer goes to this URL (listen-callback.ts). */
  callback: string | undefined;
  /** How the callback is sent: callback_method post (default) or put. */
  callbackMethod: 'POST' | 'PUT';
  /** Raw audio description: encoding (linear16, ...), sample_rate, channels, when given. */
  encoding: string | undefined;
  sampleRate: number | undefined;
  channels: number | undefined;
  /** Live only (Deepgram's defaults otherwise): interim results, endpointing (ms, 0 = off), UtteranceEnd, SpeechStarted. */
  interimResults: boolean;
  endpointing: number;
  utteranceEndMs: number | undefined;
  vadEvents: boolean;
  /** redact (pci, ssn, numbers; true = numbers) and profanity_filter (src/stt/redact.ts). */
  redaction: RedactOptions;
}

/** Deepgram's redact values served here -> what they redact; `true` and `aggressive_numbers` are `numbers`. */
const REDACT_VALUES: Record<string, RedactKind> = {
  pci: 'pci',
  ssn: 'ssn',
  numbers: 'numbers',
  true: 'numbers',
  aggressive_numbers: 'numbers',
};

function parseRedact(q: URLSearchParams): RedactKind[] {
  const kinds = new Set<RedactKind>();
  for (const raw of q.getAll('redact')) {
    // The SDKs repeat the parameter for a list; some clients comma-separate.
    for (const part of raw.split(',')) {
      const v = part.trim().toLowerCase();
      if (v === '' || v === 'false') continue;
      const kind = Object.hasOwn(REDACT_VALUES, v) ? REDACT_VALUES[v] : undefined;
      if (!kind)
        throw invalid(
          'redact',
          `redact "${part.trim().slice(0, 50)}" is not served here; use pci, ssn, numbers or true (docs/compatibility.md: other entity types are not detected).`,
          raw,
        );
      kinds.add(kind);
    }
  }
  return [...kinds];
}

/**
 * Deepgram parameters whose features Parla does not have: accepted when off ("false", or absent),
 * refused with 400 when turned on, so a client never gets an answer silently missing what it
 * asked for (a redaction that did not happen, a summary that is not there).
 */
const UNSUPPORTED_FEATURES: ReadonlySet<string> = new Set([
  'sentiment',
  'summarize',
  'topics',
  'intents',
  'detect_entities',
  'custom_topic',
  'custom_intent',
  'search',
  'replace',
  'filler_words',
  'dictation',
  'measurements',
  'multichannel',
  'ner',
  'detect_topics',
]);

/** Accepted and ignored: no effect here (model versions and tiers, opt-outs, bookkeeping). */
const IGNORED: ReadonlySet<string> = new Set([
  'version',
  'tier',
  'mip_opt_out',
  'extra',
  'custom_topic_mode',
  'custom_intent_mode',
  'diarize_version',
  'alternatives',
  'no_delay',
  'api_key',
]);

function invalid(field: string, message: string, provided?: string): ApiError {
  return new ApiError('INVALID_PARAMETER', {
    message,
    details: { field, ...(provided === undefined ? {} : { provided: provided.slice(0, 200) }) },
  });
}

/** Deepgram's booleans: "true" or "false" (any case); anything else is a 400 naming the field. */
export function parseDeepgramBool(field: string, v: string): boolean {
  const t = v.trim().toLowerCase();
  if (t === 'true') return true;
  if (t === 'false') return false;
  throw invalid(field, `${field} must be true or false.`, v);
}

/** "word:2" / "word:-3.5" / "word" -> [word, intensifier]. The last colon splits only when a number follows it. */
export function splitIntensifier(value: string): [string, number] {
  const at = value.lastIndexOf(':');
  if (at > 0) {
    const tail = value.slice(at + 1).trim();
    const n = tail === '' ? NaN : Number(tail);
    if (Number.isFinite(n)) return [value.slice(0, at).trim(), n];
  }
  return [value.trim(), 1];
}

/**
 * Deepgram model id (or a Parla id) -> Parla STT model. Rule (docs/compatibility.md): an exact
 * entry of the table; else a Parla model id as it is; else the longest table entry that the name
 * starts with followed by "-" (a family and its variants: nova-2-meeting -> nova-2, whisper-large
 * -> whisper). Anything else is INVALID_MODEL.
 */
export function mapDeepgramModel(name: string, table: DeepgramMapping['sttModels']): string {
  const exact = own(table, name);
  if (exact !== undefined) return exact;
  if ((STT_MODELS as readonly string[]).includes(name)) return name;
  // Only a model-like name (letters, digits, "-", ".", "_"; at most 100) has a family: "nova-3\0" has none.
  const family = familyLookup(name, table);
  if (family !== undefined) return family;
  const known = [...Object.keys(table), ...STT_MODELS];
  throw new ApiError('INVALID_MODEL', {
    message: `The model "${name.slice(0, 100)}" does not exist here; use a Deepgram model (${Object.keys(table).slice(0, 8).join(', ')}, ...) or a Parla one (${STT_MODELS.join(', ')}).`,
    details: { field: 'model', provided: name.slice(0, 200), suggestions: known },
  });
}

/** A parameter's one value: given twice with different values it is 400 naming it (Deepgram's SDKs send each scalar once). */
export function single(q: URLSearchParams, name: string): string | undefined {
  const all = q.getAll(name);
  if (all.length === 0) return undefined;
  // The SDKs send each scalar once; two different values are ambiguous.
  if (all.length > 1 && all.some((v) => v !== all[0])) throw invalid(name, `${name} was given more than once with different values.`);
  return all[0];
}

/** Plain decimal notation only (Number() would also take "0x10", "1e3", "Infinity"); no nested quantifier: linear. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

function number(field: string, v: string, min: number, max: number, integer: boolean): number {
  const n = DECIMAL.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw invalid(field, `${field} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}.`, v);
  }
  return n;
}

/** Parses and validates a /v1/listen query. Throws ApiError (400) naming the parameter at fault. */
export function parseListenParams(q: URLSearchParams, mapping: DeepgramMapping, mode: ListenMode): ListenParams {
  for (const [name, value] of q) {
    if (value.length > MAX_VALUE_LENGTH)
      throw invalid(name.slice(0, 100), `${name.slice(0, 100)} is longer than ${MAX_VALUE_LENGTH} characters.`);
  }
  const bool = (name: string, def: boolean): boolean => {
    const v = single(q, name);
    return v === undefined ? def : parseDeepgramBool(name, v);
  };

  for (const name of UNSUPPORTED_FEATURES) {
    for (const v of q.getAll(name)) {
      // Booleans are off when "false"; list-valued ones (search, replace, redact=...) are on when given.
      if (v.trim().toLowerCase() === 'false') continue;
      throw invalid(
        name,
        `${name} is not supported by this server (Parla transcribes, formats, punctuates and diarizes; docs/compatibility.md lists what it does not do).`,
        v,
      );
    }
  }

  const requestedModel = single(q, 'model')?.trim() || DEEPGRAM_DEFAULT_MODEL;
  const model = mapDeepgramModel(requestedModel, mapping.sttModels);

  // Detection: detect_language=true (Deepgram also takes language codes there, restricting the
  // candidates: read as true), or language=multi (nova-3's multilingual mode).
  const detectRaw = q.getAll('detect_language').filter((v) => v.trim() !== '');
  let detectLanguage = false;
  for (const v of detectRaw) {
    const t = v.trim().toLowerCase();
    if (t === 'false') continue;
    detectLanguage = true;
  }
  const languageRaw = single(q, 'language')?.trim();
  const multi = languageRaw?.toLowerCase() === 'multi';
  if (multi) detectLanguage = true;
  // Deepgram assumes English when neither a language nor detection is asked for.
  const language = detectLanguage ? undefined : languageRaw || 'en';

  const smartFormat = bool('smart_format', false);
  const numerals = bool('numerals', false);
  const diarizeModel = single(q, 'diarize_model');
  const diarize =
    bool('diarize', false) || (diarizeModel !== undefined && diarizeModel.trim().toLowerCase() !== 'false' && diarizeModel.trim() !== '');

  const keywords: string[] = [];
  for (const raw of q.getAll('keywords')) {
    // Each value is one keyword with an optional intensifier; SDKs repeat the parameter, some clients comma-separate.
    for (const part of raw.split(',')) {
      const [word, boost] = splitIntensifier(part);
      if (word !== '' && boost > 0) keywords.push(word);
    }
  }
  for (const raw of q.getAll('keyterm')) {
    const term = raw.trim();
    if (term !== '') keywords.push(term);
  }
  if (keywords.length > MAX_TERMS) throw invalid('keywords', `At most ${MAX_TERMS} keywords and keyterms together.`);

  const uttSplitRaw = single(q, 'utt_split');
  const sampleRateRaw = single(q, 'sample_rate');
  const channelsRaw = single(q, 'channels');
  const encoding = single(q, 'encoding')?.trim().toLowerCase() || undefined;
  const callback = single(q, 'callback')?.trim() || undefined;
  const method = single(q, 'callback_method')?.trim().toUpperCase() || 'POST';
  if (method !== 'POST' && method !== 'PUT') throw invalid('callback_method', 'callback_method must be post or put.', method);

  const endpointingRaw = mode === 'live' ? single(q, 'endpointing') : undefined;
  let endpointing = 10;
  if (endpointingRaw !== undefined)
    endpointing = endpointingRaw.trim().toLowerCase() === 'false' ? 0 : number('endpointing', endpointingRaw, 0, 60_000, true);
  const utteranceEndRaw = mode === 'live' ? single(q, 'utterance_end_ms') : undefined;

  return {
    requestedModel,
    model,
    language,
    detectLanguage,
    punctuate: bool('punctuate', false) || smartFormat,
    smartFormat: smartFormat || numerals,
    diarize,
    utterances: bool('utterances', false),
    uttSplit: uttSplitRaw === undefined ? DEFAULT_UTT_SPLIT : number('utt_split', uttSplitRaw, 0, 60, false),
    paragraphs: bool('paragraphs', false) || (mode === 'prerecorded' && smartFormat),
    keywords,
    tags: q
      .getAll('tag')
      .map((t) => t.trim())
      .filter((t) => t !== '')
      .slice(0, 20),
    callback,
    callbackMethod: method,
    encoding,
    sampleRate: sampleRateRaw === undefined ? undefined : number('sample_rate', sampleRateRaw, 8000, 192_000, true),
    channels: channelsRaw === undefined ? undefined : number('channels', channelsRaw, 1, 16, true),
    interimResults: mode === 'live' ? bool('interim_results', false) : false,
    endpointing,
    utteranceEndMs: utteranceEndRaw === undefined ? undefined : number('utterance_end_ms', utteranceEndRaw, 1000, 60_000, true),
    vadEvents: mode === 'live' ? bool('vad_events', false) : false,
    redaction: { redact: parseRedact(q), profanityFilter: bool('profanity_filter', false) },
  };
}

/** Every parameter this module reads or deliberately ignores (the rest are ignored too, as Deepgram does). */
export const KNOWN_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'language',
  'detect_language',
  'punctuate',
  'smart_format',
  'numerals',
  'diarize',
  'diarize_model',
  'utterances',
  'utt_split',
  'paragraphs',
  'keywords',
  'keyterm',
  'tag',
  'callback',
  'callback_method',
  'encoding',
  'sample_rate',
  'channels',
  'interim_results',
  'endpointing',
  'utterance_end_ms',
  'vad_events',
  'redact',
  'profanity_filter',
  ...UNSUPPORTED_FEATURES,
  ...IGNORED,
]);
