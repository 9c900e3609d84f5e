// The Deepgram speak dialect's mapping (docs/compatibility.md, "Speak"): Deepgram's model ids
// (aura-2-<voice>-en, aura-<voice>-en) onto a Parla TTS model and voice through the configured
// tables (config/parla.json "deepgram"), and its media output settings (encoding, container,
// sample_rate, bit_rate) onto what Parla's encoders make. Every value is checked here, at the edge.

import type { DeepgramMapping } from '../../config.js';
import { ApiError } from '../../errors.js';
import { TTS_MODELS } from '../../registry/model-registry.js';
import { own } from '../../domain/lookup.js';
import { planTtsModel } from '../../edge/model-family.js';
import { single } from './listen-params.js';
import type { SpeakEncodeSpec, SpeakEncoding } from '../../audio/speak-encoding.js';
import { ffmpegBitRateRange, type FfmpegFormat } from '../../audio/ffmpeg-encoder.js';
import { STREAM_SAMPLE_RATES } from '../../tts/stream.js';

/** Deepgram's default voice when a request names no model (its API reference: aura-asteria-en). */
export const DEFAULT_SPEAK_MODEL = 'aura-asteria-en';
/** Deepgram's limit on the text of one REST request and of one Speak message (characters). */
export const SPEAK_TEXT_LIMIT = 2000;

export interface SpeakVoice {
  /** The Parla TTS product model. */
  model: string;
  /** A Parla voice name, resolved (or refused) by the catalogue. */
  voice: string;
  /** What dg-model-name and Metadata report: the id the client asked for. */
  modelName: string;
}

const bad = (field: string, provided: string, message: string, suggestions?: string[]) =>
  new ApiError('INVALID_PARAMETER', {
    message,
    details: { field, provided: provided.slice(0, 200), ...(suggestions ? { suggestions } : {}) },
  });

export class SpeakMapper {
  constructor(private readonly table: DeepgramMapping) {}

  /**
   * `aura-2-<voice>-en` / `aura-<voice>-en`: the family through ttsModels, the voice through voices
   * (a name not in the table goes to the catalogue as a Parla voice name: aura-2-aria-en is Aria).
   * A Parla model id is taken as it is, with its voice after a colon (`aura-max:Clara`) or
   * the table's voice of asteria.
   */
  voice(model: string | undefined, plan?: { name: string; ttsModels: readonly string[] }): SpeakVoice {
    const id = (model ?? DEFAULT_SPEAK_MODEL).trim();
    const colon = id.indexOf(':');
    const base = colon < 0 ? id : id.slice(0, colon);
    if ((TTS_MODELS as readonly string[]).includes(base)) {
      const voice = colon < 0 ? (own(this.table.voices, 'asteria') ?? 'Aria') : id.slice(colon + 1);
      if (voice === '') throw bad('model', id, 'The voice after the colon is empty.');
      return { model: base, voice, modelName: id };
    }
    const parts = id.toLowerCase().split('-');
    const family = parts.length === 4 && parts[1] === '2' ? 'aura-2' : parts.length === 3 ? parts[0]! : null;
    const mapped = family === null ? undefined : own(this.table.ttsModels, family);
    const voiceName = parts[parts.length - 2] ?? '';
    if (parts[0] !== 'aura' || mapped === undefined || voiceName === '' || parts[parts.length - 1] !== 'en') {
      throw new ApiError('INVALID_MODEL', {
        message: `The model "${id.slice(0, 100)}" does not exist here; use aura-2-<voice>-en, aura-<voice>-en (English Aura voices) or a Parla TTS model (${TTS_MODELS.join(', ')}), optionally :<voice>.`,
        details: { field: 'model', provided: id.slice(0, 200), suggestions: ['aura-2-thalia-en', 'aura-asteria-en', ...TTS_MODELS] },
      });
    }
    // The best model of the mapped one's line the key's plan includes (decision #38).
    const spoken = plan ? planTtsModel(id, mapped, plan.name, plan.ttsModels) : mapped;
    return { model: spoken, voice: own(this.table.voices, voiceName) ?? voiceName, modelName: id };
  }
}

const RAW = ['linear16', 'mulaw', 'alaw'] as const;
type RawEncoding = (typeof RAW)[number];
/** Made by ffmpeg (src/audio/ffmpeg-encoder.ts) from PCM at the rate below, when this node's ffmpeg can. */
const FFMPEG = ['opus', 'aac'] as const;
const ALL = [...RAW, 'mp3', 'flac', ...FFMPEG] as const;

/** Rates Deepgram's speak API takes per encoding (its audio format combinations), and its defaults. */
const REST_RATES: Record<SpeakEncoding, readonly number[]> = {
  linear16: [8000, 16000, 24000, 32000, 48000],
  mulaw: [8000, 16000],
  alaw: [8000, 16000],
  mp3: [22050],
  flac: [8000, 16000, 22050, 32000, 48000],
};
const DEFAULT_RATE: Record<SpeakEncoding, number> = { linear16: 24000, mulaw: 8000, alaw: 8000, mp3: 22050, flac: 48000 };
const MP3_BIT_RATES = [32000, 48000];
/**
 * Deepgram's Audio Format Combinations: opus in Ogg at 48000 Hz only, 4000-650000 bps (default
 * 12000); aac at 22050 Hz only, 4000-192000 bps (default 48000). The top of each range here is
 * what ffmpeg really makes (ffmpegBitRateRange); above it is 400, never a quieter clamp.
 */
const FFMPEG_SPEAK: Record<FfmpegFormat, { rate: number; bitRate: number; minBitRate: number; deepgramMax: number }> = {
  opus: { rate: 48000, bitRate: 12000, minBitRate: 4000, deepgramMax: 650000 },
  aac: { rate: 22050, bitRate: 48000, minBitRate: 4000, deepgramMax: 192000 },
};

function refusedEncoding(encoding: string, where: 'rest' | 'socket'): ApiError {
  const supported = where === 'rest' ? [...ALL] : [...RAW];
  const message =
    where === 'socket' && (ALL as readonly string[]).includes(encoding)
      ? `encoding ${encoding} is not available on the speak socket (it sends raw audio); use ${supported.join(', ')}.`
      : `encoding must be one of ${supported.join(', ')}.`;
  return new ApiError('INVALID_FORMAT', {
    message,
    resolution: `Send encoding ${supported.join(', ')}.`,
    details: { field: 'encoding', provided: encoding.slice(0, 200), suggestions: supported },
  });
}

function sampleRate(raw: string | undefined, allowed: readonly number[], fallback: number, encoding: string): number {
  if (raw === undefined || raw === '') return fallback;
  const n = /^[0-9]{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!allowed.includes(n)) {
    throw new ApiError('INVALID_SAMPLE_RATE', {
      message: `sample_rate ${raw.slice(0, 20)} is not available for ${encoding}; use ${allowed.join(', ')}.`,
      details: { field: 'sample_rate', provided: raw.slice(0, 200), suggestions: allowed.map(String) },
    });
  }
  return n;
}

function speed(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  const n = /^[0-9]{1,3}(\.[0-9]{1,6})?$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 0.5 && n <= 2)) throw new ApiError('INVALID_SPEED', { details: { field: 'speed', provided: raw.slice(0, 200) } });
  return n;
}

export interface RestSpeakParams {
  /** What the worker pool makes; for opus and aac, the raw PCM ffmpeg encodes. */
  spec: SpeakEncodeSpec;
  /** opus and aac: the ffmpeg format and bit rate (bps) of the answer. */
  ffmpeg?: { format: FfmpegFormat; bitRate: number };
  contentType: string;
  speed: number;
}

/** The refusal for opus or aac on a node whose ffmpeg cannot encode it (checked once per format). */
export function noFfmpegEncoder(format: FfmpegFormat): ApiError {
  const others = ALL.filter((e) => e !== 'opus' && e !== 'aac');
  return new ApiError('INVALID_FORMAT', {
    message: `encoding ${format} is not supported on this server: its ffmpeg cannot encode ${format === 'aac' ? 'AAC' : 'Opus'} (install Debian's ffmpeg). Use ${others.join(', ')}.`,
    resolution: `Send encoding ${others.join(', ')}.`,
    details: { field: 'encoding', provided: format, suggestions: others },
  });
}

function ffmpegParams(format: FfmpegFormat, q: Record<string, string | undefined>): Omit<RestSpeakParams, 'speed'> {
  const d = FFMPEG_SPEAK[format];
  const container = q.container ?? (format === 'opus' ? 'ogg' : 'none');
  if (container !== (format === 'opus' ? 'ogg' : 'none')) {
    throw bad(
      'container',
      container,
      format === 'opus' ? 'container for opus is ogg.' : 'aac takes no container (leave container out or send none).',
      [format === 'opus' ? 'ogg' : 'none'],
    );
  }
  const rate = sampleRate(q.sample_rate, [d.rate], d.rate, format);
  let bitRate = d.bitRate;
  if (q.bit_rate !== undefined && q.bit_rate !== '') {
    const { max } = ffmpegBitRateRange(format, rate);
    bitRate = /^[0-9]{1,7}$/.test(q.bit_rate) ? Number(q.bit_rate) : NaN;
    if (!(bitRate >= d.minBitRate && bitRate <= max)) {
      const beyond =
        bitRate > max && bitRate <= d.deepgramMax
          ? ` (Deepgram takes up to ${d.deepgramMax}; this server's encoder makes at most ${max})`
          : '';
      throw bad('bit_rate', q.bit_rate, `bit_rate for ${format} is ${d.minBitRate} to ${max}${beyond}.`, [String(d.bitRate)]);
    }
  }
  return {
    spec: { encoding: 'linear16', container: 'none', sampleRate: rate },
    ffmpeg: { format, bitRate },
    // Deepgram's Audio Format Outputs.
    contentType: format === 'opus' ? 'audio/ogg;codecs=opus' : 'audio/aac',
  };
}

/** The speak query's parameters, each once: a parameter repeated with different values is 400 naming it (as on /v1/listen). */
const SPEAK_PARAMS = ['model', 'encoding', 'container', 'sample_rate', 'bit_rate', 'speed', 'callback'] as const;

export function speakQuery(q: URLSearchParams): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
  for (const name of SPEAK_PARAMS) out[name] = single(q, name);
  return out;
}

/** The query string of a request URL, as URLSearchParams. */
export function queryOf(url: string | undefined): URLSearchParams {
  const at = (url ?? '').indexOf('?');
  return new URLSearchParams(at < 0 ? '' : (url ?? '').slice(at + 1));
}

/** POST /v1/speak's query. Deepgram's REST default is MP3 (its encoding reference: "Default: mp3"). */
export function restSpeakParams(q: Record<string, string | undefined>): RestSpeakParams {
  // Deepgram would POST the audio to `callback` later; here the audio is always the answer, and
  // silently ignoring the callback would leave a caller waiting for a request that never comes.
  if (q.callback !== undefined)
    throw bad('callback', q.callback, 'callback is not supported here: the audio is sent in the answer. Leave callback out.');
  const encoding = q.encoding ?? 'mp3';
  if (!(ALL as readonly string[]).includes(encoding)) throw refusedEncoding(encoding, 'rest');
  if (encoding === 'opus' || encoding === 'aac') return { ...ffmpegParams(encoding, q), speed: speed(q.speed) };
  const enc = encoding as SpeakEncoding;
  const raw = (RAW as readonly string[]).includes(enc);
  const container = q.container ?? (raw ? 'wav' : 'none');
  if (raw ? container !== 'wav' && container !== 'none' : container !== 'none') {
    throw bad(
      'container',
      container,
      raw ? `container for ${enc} is wav or none.` : `${enc} takes no container (leave container out or send none).`,
      raw ? ['wav', 'none'] : ['none'],
    );
  }
  const rate = sampleRate(q.sample_rate, REST_RATES[enc], DEFAULT_RATE[enc], enc);
  let bitRate: number | undefined;
  if (q.bit_rate !== undefined && q.bit_rate !== '') {
    bitRate = /^[0-9]{1,7}$/.test(q.bit_rate) ? Number(q.bit_rate) : NaN;
    if (enc !== 'mp3') throw bad('bit_rate', q.bit_rate, `bit_rate applies to mp3, opus and aac only, not ${enc}.`);
    if (!MP3_BIT_RATES.includes(bitRate))
      throw bad('bit_rate', q.bit_rate, `bit_rate for mp3 is ${MP3_BIT_RATES.join(' or ')}.`, MP3_BIT_RATES.map(String));
  }
  const spec: SpeakEncodeSpec = {
    encoding: enc,
    container: container as 'wav' | 'none',
    sampleRate: rate,
    ...(enc === 'mp3' ? { bitRate: bitRate ?? 48000 } : {}),
  };
  return { spec, contentType: speakContentType(spec), speed: speed(q.speed) };
}

export interface SocketSpeakParams {
  encoding: RawEncoding;
  sampleRate: number;
  speed: number;
}

/**
 * WS /v1/speak's query: raw audio only (linear16, mulaw, alaw), at a rate the native stream makes
 * (STREAM_SAMPLE_RATES; Deepgram's 32000 is not one of them and is refused).
 */
export function socketSpeakParams(query: URLSearchParams): SocketSpeakParams {
  const q = speakQuery(query);
  const encoding = q.encoding ?? 'linear16';
  if (!(RAW as readonly string[]).includes(encoding)) throw refusedEncoding(encoding, 'socket');
  const enc = encoding as RawEncoding;
  const allowed = enc === 'linear16' ? STREAM_SAMPLE_RATES : [8000, 16000];
  return { encoding: enc, sampleRate: sampleRate(q.sample_rate, allowed, enc === 'linear16' ? 24000 : 8000, enc), speed: speed(q.speed) };
}

/** Content-Type of a REST answer, as Deepgram's. */
export function speakContentType(spec: SpeakEncodeSpec): string {
  switch (spec.encoding) {
    case 'mp3':
      return 'audio/mpeg';
    case 'flac':
      return 'audio/flac';
    case 'linear16':
      return spec.container === 'wav' ? 'audio/wav' : 'audio/l16';
    default:
      return spec.container === 'wav' ? 'audio/wav' : spec.encoding === 'mulaw' ? 'audio/basic' : 'audio/x-alaw-basic';
  }
}
