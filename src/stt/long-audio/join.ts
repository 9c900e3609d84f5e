// Joins the recognition results of a recording's pieces (plan.ts) into one result on the whole
// recording's timeline: word times moved by where the piece's decoding started, a word decoded by
// two pieces (the overlap at a cut) kept from the piece that owns its middle, and times kept in
// order across the seam.

import type { RecognitionResult, RecognizedUtterance, WordTiming } from '../../engines/engine.js';
import type { Piece } from './plan.js';

export function joinPieces(pieces: Piece[], results: RecognitionResult[], sampleRate: number, totalSamples: number): RecognitionResult {
  const utterances: RecognizedUtterance[] = [];
  let lastEnd = 0;
  const languageSeconds = new Map<string, number>();
  pieces.forEach((piece, i) => {
    const r = results[i]!;
    const offset = piece.decodeStart / sampleRate;
    const ownStart = piece.decodeStart < piece.start ? piece.start / sampleRate : -Infinity;
    const ownEnd = piece.decodeEnd > piece.end ? piece.end / sampleRate : Infinity;
    if (r.language) languageSeconds.set(r.language, (languageSeconds.get(r.language) ?? 0) + (piece.end - piece.start) / sampleRate);
    for (const u of r.utterances) {
      const words: WordTiming[] = [];
      for (const w of u.words) {
        const start = w.start + offset;
        const end = w.end + offset;
        const middle = (start + end) / 2;
        if (middle < ownStart || middle >= ownEnd) continue;
        // Two decoders can place a seam word's edges differently: never let time run backwards.
        const s = Math.max(start, lastEnd);
        const e = Math.max(end, s);
        words.push({ ...w, start: +s.toFixed(3), end: +e.toFixed(3) });
        lastEnd = e;
      }
      if (words.length) utterances.push({ start: words[0]!.start, end: words[words.length - 1]!.end, words });
    }
  });
  // The language most of the audio was recognized in (pieces of a multilingual Whisper detect it each).
  const language = [...languageSeconds.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const engine = results.find((r) => r.engine)?.engine;
  // Every piece ran the same task (a translation stays one when cut into pieces).
  const task = results.find((r) => r.task)?.task;
  return {
    utterances,
    duration: totalSamples / sampleRate,
    ...(engine ? { engine } : {}),
    ...(language ? { language } : {}),
    ...(task ? { task } : {}),
  };
}
