// Text-to-speech's settings: the ceilings on the audio of one request.

import { int, type Env } from '../domain/env-values.js';

export interface TtsLimits {
  /** /tts/generate: speech and silence together. */
  maxAudioSeconds: number;
  /** /tts/stream (up to 50,000 characters of text, so more than a file). */
  maxStreamAudioSeconds: number;
  /** /tts/generate: all break tags together (each is clamped to 20 s on its own). */
  maxBreakSeconds: number;
}

export interface TtsSettings {
  /** Ceilings on the audio of one TTS request (seconds); over them is 400 AUDIO_TOO_LONG. */
  ttsLimits: TtsLimits;
}

export function ttsSettings(env: Env): TtsSettings {
  return {
    // Far above what the longest text allows at the slowest speed (5,000 characters at speed 0.5
    // are about 12 minutes; 50,000 about 2 hours): only markup-made audio reaches them.
    ttsLimits: {
      maxAudioSeconds: int(env, 'PARLA_TTS_MAX_AUDIO_SECONDS', 1200, 1, 86400),
      maxStreamAudioSeconds: int(env, 'PARLA_TTS_STREAM_MAX_AUDIO_SECONDS', 10800, 1, 86400),
      maxBreakSeconds: int(env, 'PARLA_TTS_MAX_BREAK_SECONDS', 300, 0, 86400),
    },
  };
}
