// What the TTS service needs from the catalogue and the model registry. The service depends on
// these narrow ports; src/services.ts wires the real catalogue and registry to them.

import type { EngineVoices, TtsEngine } from '../engines/engine.js';
import type { VoiceRequest, VoiceSelection } from '../catalog/voice-selection.js';

export type { VoiceRequest, VoiceSelection };

export interface TtsCatalogPort {
  /**
   * Validates the language for the model and finds the voice. Throws ApiError: INVALID_LANGUAGE,
   * LANGUAGE_NOT_SUPPORTED, INVALID_VOICE (details.suggestions), VOICE_ACCESS_DENIED.
   * Returns the canonical language code (e.g. "de" -> "de-DE") with the voice.
   */
  selectVoice(req: VoiceRequest): { language: string; voice: VoiceSelection };
}

/** What the TTS service needs of the model registry (src/registry/model-registry.ts). */
export interface TtsModelsPort {
  /**
   * The first available engine of the model's chain that serves the language (and, given a voice's
   * engine voices, has a mapping for the voice); LANGUAGE_NOT_SUPPORTED when none.
   */
  requireTtsEngine(model: string, language: string, engineVoices?: EngineVoices): TtsEngine;
  /** Credits for `characters` billable characters of the model. */
  ttsCredits(model: string, characters: number): number;
}
