// The steps after an engine's synthesis, as one worker task (`audio.voice`): the pitch shift the
// engine could not make itself, then the output stage (level.ts: DC high-pass, the voice's fixed
// gain, the true-peak limiter). The shift stays in floating point until the limiter, so nothing
// is clipped on the way (issue 29, item 1).

import { pitchShiftFloat } from './time-pitch.js';
import { level } from './level.js';

export interface VoiceOutputTask {
  samples: Int16Array;
  sampleRate: number;
  /** Semitones to shift after synthesis (0: none). */
  semitones: number;
  gainDb: number;
  dc: boolean;
}

export function voiceOutput(t: VoiceOutputTask): Int16Array {
  if (t.samples.length === 0) return t.samples;
  const x = Math.abs(t.semitones) >= 0.01 ? pitchShiftFloat(t.samples, t.sampleRate, t.semitones) : t.samples;
  return level(x, t.sampleRate, { gainDb: t.gainDb, dc: t.dc });
}
