// The OpenAI dialect's mapping table: its model ids, voices, audio formats and speed range onto
// Parla's. The id and voice tables are configuration (config/parla.json "openai"), so an operator
// can rebind them; the rules that are not a matter of taste (which formats have a real encoder,
// how speed is brought into the engines' range) live here. docs/compatibility.md documents both.

import type { OpenAiMapping } from '../../config.js';
import { ApiError } from '../../errors.js';
import { STT_MODELS, TTS_MODELS } from '../../registry/model-registry.js';
import { own } from '../../domain/lookup.js';
import { familyLookup, planTtsModel } from '../../edge/model-family.js';
import type { OutputFormat } from '../../tts/generate.js';
import type { FfmpegFormat } from '../../audio/ffmpeg-encoder.js';

export const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

/**
 * How each OpenAI format is made: a Parla file format (a real encoder: LAME, libFLAC, WAV), raw
 * PCM from the stream (24 kHz s16le mono, as OpenAI's pcm), or ffmpeg on that stream (Ogg Opus
 * with libopus, ADTS AAC with ffmpeg's encoder: src/audio/ffmpeg-encoder.ts). A server whose ffmpeg
 * cannot encode one refuses it (unsupportedFormat), never passing another codec off as it.
 */
export const SPEECH_FORMAT_PLAN: Record<SpeechFormat, { file: OutputFormat } | 'pcm' | { ffmpeg: FfmpegFormat }> = {
  mp3: { file: 'mp3' },
  flac: { file: 'flac' },
  wav: { file: 'wav' },
  pcm: 'pcm',
  opus: { ffmpeg: 'opus' },
  aac: { ffmpeg: 'aac' },
};

export const SPEECH_CONTENT_TYPES: Record<SpeechFormat, string> = {
  mp3: 'audio/mpeg',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
  opus: 'audio/ogg',
  aac: 'audio/aac',
};

/** OpenAI's pcm: 24 kHz, 16-bit little-endian, mono. */
export const PCM_SAMPLE_RATE = 24000;

/** OpenAI's speed range, and the engines' (what Parla's own API takes). */
export const OPENAI_SPEED = { min: 0.25, max: 4 } as const;
export const ENGINE_SPEED = { min: 0.5, max: 2 } as const;

export class OpenAiMapper {
  constructor(private readonly table: OpenAiMapping) {}

  /**
   * The Parla TTS model for an OpenAI id (its family and dated snapshots too: model-family.ts),
   * the best of its line the plan includes (`included`: decision #38); a Parla id as it is (the
   * plan check then names it); anything else is INVALID_MODEL.
   */
  ttsModel(model: string, plan?: { name: string; ttsModels: readonly string[] }): string {
    if ((TTS_MODELS as readonly string[]).includes(model)) return model;
    const mapped = familyLookup(model, this.table.ttsModels);
    if (mapped === undefined) throw unknownModel(model, [...Object.keys(this.table.ttsModels), ...TTS_MODELS]);
    return plan ? planTtsModel(model, mapped, plan.name, plan.ttsModels) : mapped;
  }

  /** The Parla STT model for an OpenAI id (family and snapshots too) or a Parla id; anything else is INVALID_MODEL. */
  sttModel(model: string): string {
    if ((STT_MODELS as readonly string[]).includes(model)) return model;
    const mapped = familyLookup(model, this.table.sttModels);
    if (mapped === undefined) throw unknownModel(model, [...Object.keys(this.table.sttModels), ...STT_MODELS]);
    return mapped;
  }

  /** An OpenAI voice name (any case) -> its Parla voice; any other name goes to the catalogue as it is. */
  voice(voice: string): string {
    return own(this.table.voices, voice.toLowerCase()) ?? voice;
  }

  /** Every id /v1/models lists: OpenAI's mapped ids, then Parla's own. */
  modelIds(): string[] {
    return [...new Set([...Object.keys(this.table.ttsModels), ...Object.keys(this.table.sttModels), ...TTS_MODELS, ...STT_MODELS])];
  }

  voiceTable(): Readonly<Record<string, string>> {
    return this.table.voices;
  }
}

function unknownModel(model: string, known: string[]): ApiError {
  return new ApiError('INVALID_MODEL', {
    message: `The model "${model.slice(0, 100)}" does not exist here; use one of ${known.join(', ')}.`,
    details: { field: 'model', provided: model.slice(0, 200), suggestions: known },
  });
}

/**
 * OpenAI's speed (0.25-4.0) in the engines' range (0.5-2.0): clamped. Parla has no time-stretch
 * that keeps pitch over that range, and faking one by resampling would change the voice, so
 * speeds beyond the engines' range are spoken at its nearest end (the answer says so in a header).
 */
export function engineSpeed(speed: unknown): number {
  // null is "not given" (docs/architecture.md): the schema takes any value here, so the shared
  // null-means-absent wrapper leaves it to this check.
  if (speed === null || speed === undefined) return 1;
  if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < OPENAI_SPEED.min || speed > OPENAI_SPEED.max) {
    throw new ApiError('INVALID_SPEED', {
      message: 'speed must be a number from 0.25 to 4.0.',
      resolution: 'Send a speed between 0.25 and 4.0 (default 1.0).',
      details: { field: 'speed', provided: String(JSON.stringify(speed)).slice(0, 200) },
    });
  }
  return Math.min(ENGINE_SPEED.max, Math.max(ENGINE_SPEED.min, speed));
}

/** The refusal for a format this server's ffmpeg cannot encode (or no ffmpeg at all). */
export function unsupportedFormat(format: FfmpegFormat): ApiError {
  return new ApiError('INVALID_FORMAT', {
    message: `response_format ${format} is not supported on this server: its ffmpeg cannot encode ${format === 'aac' ? 'AAC' : 'Opus'} (install Debian's ffmpeg). Use mp3, flac, wav or pcm.`,
    resolution: 'Send response_format mp3, flac, wav or pcm.',
    details: { field: 'response_format', provided: format, suggestions: ['mp3', 'flac', 'wav', 'pcm'] },
  });
}
