// A transcript assembled from recognizer utterances: post-processing (smart format, punctuation,
// speakers) and the segments that verbose_json, srt and vtt are built from.

import type { RecognizedUtterance, WordTiming } from '../engines/engine.js';
import { punctuate } from './punctuate.js';
import { smartFormat } from './smart-format.js';

export interface TranscriptWord extends WordTiming {
  /** The word as written in the punctuated text (capitalized, with punctuation). */
  punctuated: string;
  speaker?: number;
}

export interface TranscriptSegment {
  id: number;
  start: number;
  end: number;
  text: string;
  words: TranscriptWord[];
  avgConfidence: number;
  speaker?: number;
}

export interface Transcript {
  text: string;
  words: TranscriptWord[];
  segments: TranscriptSegment[];
}

/** Longest segment before it is cut at a word boundary (subtitles stay readable). */
const MAX_SEGMENT_SECONDS = 8;

/** Index in words (1..length-1) to start the next segment at: after the most pronounced break. */
function bestCut(words: TranscriptWord[]): number {
  let best = words.length - 1;
  let bestScore = -Infinity;
  for (let k = 1; k < words.length; k++) {
    const gap = words[k]!.start - words[k - 1]!.end;
    const punct = /[.?!]$/.test(words[k - 1]!.punctuated) ? 1 : /,$/.test(words[k - 1]!.punctuated) ? 0.3 : 0;
    // Late cuts keep segments long; very early ones leave a stub: favour the second half a little.
    const score = gap + punct + 0.05 * (k / words.length);
    if (score > bestScore) {
      bestScore = score;
      best = k;
    }
  }
  return best;
}

export function buildTranscript(utterances: RecognizedUtterance[], opts: { smartFormat: boolean; punctuate: boolean }): Transcript {
  const words: TranscriptWord[] = [];
  const utteranceEnds = new Set<number>();
  for (const u of utterances) {
    const w = opts.smartFormat ? smartFormat(u.words) : u.words;
    words.push(...w.map((x) => ({ ...x, punctuated: x.word })));
    if (words.length) utteranceEnds.add(words.length - 1);
  }
  if (opts.punctuate) {
    punctuate(words, utteranceEnds).forEach((tok, i) => (words[i]!.punctuated = tok.text));
  }
  // Segments follow the recognizer's utterances, cut when longer than MAX_SEGMENT_SECONDS.
  const segments: TranscriptSegment[] = [];
  let current: TranscriptWord[] = [];
  const flush = () => {
    if (!current.length) return;
    const conf = current.map((w) => w.confidence ?? 0);
    segments.push({
      id: segments.length,
      start: current[0]!.start,
      end: current[current.length - 1]!.end,
      text: current.map((w) => w.punctuated).join(' '),
      words: current,
      avgConfidence: +(conf.reduce((a, b) => a + b, 0) / conf.length).toFixed(3),
    });
    current = [];
  };
  words.forEach((w, i) => {
    if (current.length && w.end - current[0]!.start > MAX_SEGMENT_SECONDS) {
      // Cut where the speaker paused longest (a sentence end counts extra), not just anywhere.
      const cut = bestCut(current);
      const rest = current.slice(cut);
      current = current.slice(0, cut);
      flush();
      current = rest;
    }
    current.push(w);
    if (utteranceEnds.has(i)) flush();
  });
  flush();
  return { text: words.map((w) => w.punctuated).join(' '), words, segments };
}

/** Stretches for speaker clustering: segments, long ones cut into pieces of at most six seconds. */
export function diarizationSpans(t: Transcript): Array<{ start: number; end: number; words: TranscriptWord[] }> {
  const spans: Array<{ start: number; end: number; words: TranscriptWord[] }> = [];
  for (const seg of t.segments) {
    const pieces: TranscriptWord[][] = [];
    let cur: TranscriptWord[] = [];
    for (const w of seg.words) {
      if (cur.length && w.end - cur[0]!.start > 6) {
        pieces.push(cur);
        cur = [];
      }
      cur.push(w);
    }
    if (cur.length) {
      // A short tail says too little about its speaker: it joins the piece before it.
      const last = pieces[pieces.length - 1];
      if (last && cur[cur.length - 1]!.end - cur[0]!.start < 1.2) last.push(...cur);
      else pieces.push(cur);
    }
    for (const p of pieces) spans.push({ start: p[0]!.start, end: p[p.length - 1]!.end, words: p });
  }
  return spans;
}

export function applySpeakers(t: Transcript, spans: ReturnType<typeof diarizationSpans>, labels: number[]): void {
  spans.forEach((s, i) => s.words.forEach((w) => (w.speaker = labels[i] ?? 0)));
  for (const seg of t.segments) {
    const counts = new Map<number, number>();
    for (const w of seg.words) counts.set(w.speaker ?? 0, (counts.get(w.speaker ?? 0) ?? 0) + 1);
    seg.speaker = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  }
}
