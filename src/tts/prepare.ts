// Turns a validated TTS request into a synthesis job: permissions, markup rules, voice and engine
// selection, price. Everything here runs before any credit is held or any audio is made.

import type { AuthContext } from '../accounts/auth-context.js';
import { requireFeature } from '../accounts/auth-context.js';
import { countCharacters, ttsCharacters } from '../accounts/pricing.js';
import type { Config } from '../config.js';
import { EngineError, engineVoiceFor } from '../engines/engine.js';
import { ApiError } from '../errors.js';
import { parseMarkup, withoutBreaks, type MarkupItem, type ParsedMarkup } from './markup.js';
import { speakablePlainText } from './plain-text.js';
import type { TtsCatalogPort, TtsModelsPort } from './ports.js';
import { cleanTtsText } from './clean-text.js';
import { audioTooLong, breakSeconds, estimateSeconds } from './audio-limits.js';
import type { VoiceParams } from './speak-items.js';

export type TtsEndpoint = 'generate' | 'stream';

export interface TtsRequest {
  text: string;
  voice: string;
  model: string;
  /** Undefined when the request did not send one: en-US, or a Flash voice's own language. */
  language: string | undefined;
  speed: number;
  /** Undefined when the request did not send pitch. */
  pitch: number | undefined;
  /**
   * The compatible doors' plain text (decision #37, plain-text.ts): symbols read as words, tags
   * dropped, Parla's markup not read, nothing refused. Absent: Parla's markup (the native API).
   */
  plainText?: boolean;
}

export interface TtsJob {
  model: string;
  language: string;
  voiceName: string;
  voice: VoiceParams;
  items: MarkupItem[];
  /** Billable characters: text without tags, plus vocalizations and break silence (pricing.ts). */
  characters: number;
  credits: number;
  /** Most audio this request may produce, seconds (checked on the real samples as they come). */
  maxAudioSeconds: number;
}

const AURA = /^aura-/;

export function prepareTts(
  config: Config,
  catalog: TtsCatalogPort,
  models: TtsModelsPort,
  auth: AuthContext,
  req: TtsRequest,
  endpoint: TtsEndpoint,
): TtsJob {
  requireFeature(auth, endpoint === 'generate' ? 'tts' : 'tts_stream');
  const plan = config.product.plans[auth.account.plan];
  if (!plan.ttsModels.includes(req.model)) {
    const allowed = plan.ttsModels.join(', ');
    throw new ApiError('MODEL_ACCESS_DENIED', {
      message: `The ${auth.account.plan} plan does not include ${req.model}; it includes ${allowed}.`,
      details: { provided: req.model, suggestions: plan.ttsModels },
    });
  }
  // Before anything reads the text: what no engine can take is removed (clean-text.ts).
  const text = cleanTtsText(req.text);
  if (text.trim() === '') throw new ApiError('MISSING_TEXT');

  const parsed = req.plainText ? plainTextItems(text) : parseMarkup(text);
  if ((parsed.hasBreaks || parsed.hasExpressions) && !AURA.test(req.model)) {
    throw new ApiError('EXPRESSION_NOT_SUPPORTED', {
      message: `Expression and break tags are supported by Aura models only, not ${req.model}.`,
      details: { provided: req.model, suggestions: ['aura-lite', 'aura-prime', 'aura-max'] },
    });
  }
  if (endpoint === 'stream' && req.pitch !== undefined && req.model !== 'rapid-flash') {
    throw new ApiError('INVALID_PITCH', {
      message: `Streaming does not support pitch for ${req.model}; only rapid-flash streams with pitch.`,
      resolution: 'Remove pitch, stream with model rapid-flash, or use POST /api/v1/tts/generate (every model takes pitch there).',
      details: { field: 'pitch', provided: String(req.pitch) },
    });
  }

  const { language, voice } = catalog.selectVoice({
    model: req.model,
    language: req.language ?? 'en-US',
    languageGiven: req.language !== undefined,
    voice: req.voice,
    plan: auth.account.plan,
  });
  const engine = models.requireTtsEngine(req.model, language, voice.engineVoices);
  const engineVoice = engineVoiceFor(engine, voice.engineVoices, language);
  if (engineVoice === undefined) throw new EngineError(engine.id, `voice ${voice.id} has no ${engine.id} mapping`, false);

  const items = endpoint === 'stream' ? withoutBreaks(parsed.items) : parsed.items;
  const limits = config.ttsLimits;
  const maxAudioSeconds = endpoint === 'stream' ? limits.maxStreamAudioSeconds : limits.maxAudioSeconds;
  const silence = breakSeconds(items);
  if (silence > limits.maxBreakSeconds) {
    throw new ApiError('AUDIO_TOO_LONG', {
      message: `The break tags add up to ${Math.ceil(silence)} s of silence; one request may have at most ${limits.maxBreakSeconds} s.`,
      details: { provided: String(Math.ceil(silence)), limit_seconds: limits.maxBreakSeconds },
    });
  }
  const speed = voice.baseRate * req.speed;
  const estimate = estimateSeconds(items, speed);
  if (estimate > maxAudioSeconds) throw audioTooLong('The audio', estimate, maxAudioSeconds);
  const vocalizations = items.reduce((n, i) => n + (i.type === 'vocal' ? 1 : 0), 0);
  const characters = ttsCharacters(countCharacters(parsed.plainText), vocalizations, silence);
  return {
    model: req.model,
    language,
    voiceName: voice.name,
    voice: { engine, engineVoice, language, speed, pitch: voice.basePitch + (req.pitch ?? 0) },
    items,
    characters,
    credits: models.ttsCredits(req.model, characters),
    maxAudioSeconds,
  };
}

/**
 * Plain text as one item of speech: the words the engines are given (symbols spelled out, tags
 * dropped), billed on the characters the client sent (decisions #2 and #37: "<" is one character
 * whether it is spoken as "less than" or not).
 */
function plainTextItems(text: string): ParsedMarkup {
  const spoken = speakablePlainText(text);
  return {
    items: [{ type: 'text', text: spoken, whisper: false, emphasis: false }],
    plainText: text,
    hasBreaks: false,
    hasExpressions: false,
  };
}
