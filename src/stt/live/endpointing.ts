// Endpointing of a live stream, decided from the VAD's 20 ms frame decisions alone (no recognizer):
// when speech starts (SpeechStarted, speech-onset.ts), when a silence ends the utterance
// (`endpointing` ms: a final result with speech_final), when the interim hypothesis is due, and when
// an UtteranceEnd is due (`utterance_end_ms` after the last word, outside speech). The session
// (session.ts) asks the recognizer for what this decides is due.

import { SpeechOnsets } from './speech-onset.js';

/**
 * Interim results: until the first one, the hypothesis is read every INTERIM_FIRST_SECONDS of
 * speech (reading it costs well under a millisecond), so the first word shows as soon as the
 * recognizer has it; then every INTERIM_EVERY_SECONDS.
 */
export const INTERIM_FIRST_SECONDS = 0.1;
export const INTERIM_EVERY_SECONDS = 0.5;

export interface EndpointSettings {
  /** Silence (ms) that ends an utterance; 0: never (endpointing=false). */
  endpointing: number;
  interimResults: boolean;
  utteranceEndMs: number;
}

export interface EndpointStep {
  /** Onsets of speech completed by these frames, in seconds on the stream's timeline. */
  onsets: number[];
  /** The silence is long enough: finalize the utterance (speech_final). */
  endUtterance: boolean;
  /** Read the recognizer's hypothesis for an interim result. */
  readInterim: boolean;
}

export class Endpointer {
  private readonly onsets: SpeechOnsets;
  private inSpeech = false;
  private silenceSeconds = 0;
  private sinceInterim = 0;
  private lastInterim = '';
  private lastWordEnd: number | null = null;
  private utteranceEndSent = true;

  constructor(
    private readonly s: EndpointSettings,
    private readonly frameSeconds: number,
  ) {
    this.onsets = new SpeechOnsets(frameSeconds);
  }

  /** The VAD's decisions for the next `seconds` of audio. */
  push(frames: readonly boolean[], seconds: number): EndpointStep {
    const onsets = this.onsets.push(frames);
    // Endpointing follows the raw frames: a short pause may end an utterance (endpointing=10).
    for (const speech of frames) {
      if (speech) {
        this.inSpeech = true;
        this.silenceSeconds = 0;
      } else {
        this.silenceSeconds += this.frameSeconds;
      }
    }
    if (this.inSpeech && this.s.endpointing > 0 && this.silenceSeconds * 1000 >= this.s.endpointing) {
      this.inSpeech = false;
      return { onsets, endUtterance: true, readInterim: false };
    }
    let readInterim = false;
    if (this.inSpeech && this.s.interimResults) {
      this.sinceInterim += seconds;
      if (this.sinceInterim >= (this.lastInterim ? INTERIM_EVERY_SECONDS : INTERIM_FIRST_SECONDS)) {
        this.sinceInterim = 0;
        readInterim = true;
      }
    }
    return { onsets, endUtterance: false, readInterim };
  }

  /** What was heard was dropped unrecognized (session.clear()): the utterance starts again. */
  cleared(): void {
    this.inSpeech = false;
    this.silenceSeconds = 0;
    this.sinceInterim = 0;
    this.lastInterim = '';
  }

  /** Whether an interim transcript is news (not empty, not the one shown last); remembers it. */
  interim(text: string): boolean {
    if (!text || text === this.lastInterim) return false;
    this.lastInterim = text;
    return true;
  }

  /** An utterance was finalized (by a silence, Finalize or the end); its last word's end, or null when nothing was said. */
  finalized(lastWordEnd: number | null): void {
    this.sinceInterim = 0;
    this.lastInterim = '';
    if (lastWordEnd !== null) {
      this.lastWordEnd = lastWordEnd;
      this.utteranceEndSent = false;
    }
  }

  /** The last word's end when an UtteranceEnd is due at `now` (told once per utterance), else null. */
  utteranceEndDue(now: number): number | null {
    if (this.utteranceEndSent || this.lastWordEnd === null || this.inSpeech) return null;
    if (now - this.lastWordEnd < this.s.utteranceEndMs / 1000) return null;
    this.utteranceEndSent = true;
    return this.lastWordEnd;
  }
}
