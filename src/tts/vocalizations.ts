// How each expression tag is voiced: a short utterance in the request's own voice (same engine,
// same engine voice, so it sits in the voice's register), with its own rate, pitch and breath.
// Engines have no laughter or sigh samples; this keeps vocalizations real speech audio of the voice.

import type { SpeechStyle } from '../engines/engine.js';
import type { Vocalization } from './markup.js';

export interface VocalRealization {
  text: string;
  /** Multiplies the request's speed. */
  speed: number;
  /** Semitones added to the request's pitch. */
  pitch: number;
  style: SpeechStyle;
  /** Linear gain applied to the vocalization's audio. */
  gain: number;
}

export const VOCAL_REALIZATIONS: Record<Vocalization, VocalRealization> = {
  laugh: { text: 'ha ha ha ha!', speed: 1.25, pitch: 3, style: 'normal', gain: 1 },
  chuckle: { text: 'heh heh.', speed: 1.15, pitch: 1, style: 'normal', gain: 0.7 },
  sigh: { text: 'haaah.', speed: 0.6, pitch: -2, style: 'whisper', gain: 0.9 },
  gasp: { text: 'hah!', speed: 1.4, pitch: 4, style: 'whisper', gain: 1 },
  yawn: { text: 'aaah, ahhh.', speed: 0.55, pitch: -3, style: 'normal', gain: 0.8 },
  cough: { text: 'ahem! ahem.', speed: 1.3, pitch: -1, style: 'normal', gain: 0.9 },
};
