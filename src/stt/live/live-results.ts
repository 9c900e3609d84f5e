// A recognized utterance as a live stream's result (session-output.ts LiveResult): its transcript
// built as the file transcription builds it (smart format, punctuation), its words and confidence.

import type { RecognizedUtterance } from '../../engines/engine.js';
import { buildTranscript } from '../transcript.js';
import type { RealtimeParams } from './params.js';
import type { LiveResult } from './session-output.js';

export interface RenderedUtterance {
  transcript: string;
  words: LiveResult['words'];
  confidence: number;
}

export function renderUtterance(u: RecognizedUtterance, params: RealtimeParams): RenderedUtterance {
  const t = buildTranscript([u], { smartFormat: params.smartFormat, punctuate: params.punctuate });
  const words = t.words.map((w) => ({
    word: w.word,
    start: w.start,
    end: w.end,
    confidence: w.confidence ?? 0,
    punctuated_word: w.punctuated,
  }));
  const confidence = words.length ? +(words.reduce((a, w) => a + w.confidence, 0) / words.length).toFixed(3) : 0;
  return { transcript: t.text, words, confidence };
}

/** The result for `u`, or an empty one at `now` (seconds on the stream's timeline) when nothing was heard. */
export function liveResult(
  u: RecognizedUtterance | null,
  now: number,
  params: RealtimeParams,
  flags: { isFinal: boolean; speechFinal: boolean; fromFinalize: boolean },
): LiveResult {
  const r = u ? renderUtterance(u, params) : { transcript: '', words: [], confidence: 0 };
  const start = u ? u.start : now;
  const end = u ? u.end : now;
  return {
    start: +start.toFixed(3),
    duration: +Math.max(0, end - start).toFixed(3),
    ...flags,
    transcript: r.transcript,
    confidence: r.confidence,
    words: r.words,
  };
}
