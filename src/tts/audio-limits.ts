// Ceilings on the audio one TTS request makes (issue 19: 262 twenty-second breaks made an 87-minute,
// 168 MB file for 1 credit). Checked twice: before synthesis from what the markup asks for (break
// silence is exact; speech is estimated on the fast side, so a real request is never refused on a
// guess), and while audio is produced, on the real samples, which stops the request at the ceiling.

import { ApiError } from '../errors.js';
import type { MarkupItem } from './markup.js';
import { VOCAL_REALIZATIONS } from './vocalizations.js';

/**
 * Characters per second of speech at speed 1, on the fast side (English speech is about 14-15):
 * an estimate from it is below the real duration, so it refuses only what is surely too long.
 */
const FAST_CHARACTERS_PER_SECOND = 25;

export function audioTooLong(what: string, seconds: number, limit: number): ApiError {
  return new ApiError('AUDIO_TOO_LONG', {
    message: `${what} would be ${Math.ceil(seconds)} s; one request may produce at most ${limit} s.`,
    details: { provided: String(Math.ceil(seconds)), limit_seconds: limit },
  });
}

/** Total break silence of the items, seconds (each break already clamped). */
export function breakSeconds(items: MarkupItem[]): number {
  let s = 0;
  for (const item of items) if (item.type === 'break') s += item.seconds;
  return s;
}

/** A low estimate of the audio the items make at `speed` (final rate multiplier), seconds. */
export function estimateSeconds(items: MarkupItem[], speed: number): number {
  const rate = FAST_CHARACTERS_PER_SECOND * Math.max(speed, 0.25);
  let s = 0;
  for (const item of items) {
    if (item.type === 'break') s += item.seconds;
    else if (item.type === 'text') s += item.text.length / rate;
    else {
      const v = VOCAL_REALIZATIONS[item.kind];
      s += v.text.length / (rate * v.speed);
    }
  }
  return s;
}

/** The audio a request has produced so far, against its ceiling: take() throws AUDIO_TOO_LONG past it. */
export class AudioBudget {
  private used = 0;
  private over = false;

  constructor(private readonly limitSeconds: number) {}

  take(seconds: number): void {
    this.used += seconds;
    if (this.used > this.limitSeconds + 1e-6) {
      this.over = true;
      throw audioTooLong('The audio', this.used, this.limitSeconds);
    }
  }

  /** Throws once the ceiling was passed (work not started yet is not worth starting). */
  check(): void {
    if (this.over) throw audioTooLong('The audio', this.used, this.limitSeconds);
  }
}
