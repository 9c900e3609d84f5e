// What a speech request asks of the catalogue (a voice in a language and model) and what it gets
// back. Declared here, below the TTS service, so the catalogue does not import the service that
// uses it (src/tts/ports.ts names the port, docs/architecture.md "Floors").

import type { Plan } from '../domain/accounts.js';

export interface VoiceSelection {
  /** Stable id of the base voice. */
  id: string;
  /** The name as the request used it (localized for Aura voices). */
  name: string;
  /** Engine voice per engine mapping key (an engine's voiceMapping, else its id; e.g. { espeak: "de+m3", flite: "rms" }). */
  engineVoices: Record<string, string>;
  /** Semitones the voice sits above or below its engine voice. */
  basePitch: number;
  /** Multiplier on the engine voice's natural rate. */
  baseRate: number;
}

export interface VoiceRequest {
  model: string;
  language: string;
  /** False when the request did not name a language (a Flash voice then speaks its own). */
  languageGiven?: boolean;
  voice: string;
  plan: Plan;
}
