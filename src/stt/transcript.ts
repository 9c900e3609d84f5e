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
  /** Diarized with known speakers: the name of each speaker label that matched one (else absent). */
  speakerNames?: Array<string | undefined>;
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

function segmentOf(words: TranscriptWord[], id: number): TranscriptSegment {
  const conf = words.map((w) => w.confidence ?? 0);
  return {
    id,
    start: words[0]!.start,
    end: words[words.length - 1]!.end,
    text: words.map((w) => w.punctuated).join(' '),
    words,
    avgConfidence: +(conf.reduce((a, b) => a + b, 0) / conf.length).toFixed(3),
  };
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
    segments.push(segmentOf(current, segments.length));
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

/** A pause between words (s) long enough for another speaker to take over: spans are cut there. */
const TURN_GAP = 0.25;
/** Shortest span described on its own (shorter says too little about its speaker). */
const MIN_SPAN = 1.0;
/** Longest span: longer ones are cut, so a change without a pause is found within this. */
const MAX_SPAN = 6;

/**
 * Stretches for speaker clustering: each segment cut at pauses of TURN_GAP or more (the recognizer
 * joins turns with shorter pauses than its utterances need, so one segment can hold two speakers)
 * and at MAX_SPAN; a stretch shorter than MIN_SPAN joins its neighbour across the shorter pause.
 */
export function diarizationSpans(t: Transcript): Array<{ start: number; end: number; words: TranscriptWord[] }> {
  const spans: Array<{ start: number; end: number; words: TranscriptWord[] }> = [];
  const length = (p: TranscriptWord[]) => p[p.length - 1]!.end - p[0]!.start;
  for (const seg of t.segments) {
    const pieces: TranscriptWord[][] = [];
    let cur: TranscriptWord[] = [];
    for (const w of seg.words) {
      const prev = cur[cur.length - 1];
      if (prev && (w.start - prev.end >= TURN_GAP || w.end - cur[0]!.start > MAX_SPAN)) {
        pieces.push(cur);
        cur = [];
      }
      cur.push(w);
    }
    if (cur.length) pieces.push(cur);
    for (;;) {
      const k = pieces.findIndex((p) => length(p) < MIN_SPAN);
      if (k < 0 || pieces.length < 2) break;
      const gapBefore = k > 0 ? pieces[k]![0]!.start - pieces[k - 1]!.at(-1)!.end : Infinity;
      const gapAfter = k < pieces.length - 1 ? pieces[k + 1]![0]!.start - pieces[k]!.at(-1)!.end : Infinity;
      const into = gapBefore <= gapAfter ? k - 1 : k + 1;
      pieces[Math.min(k, into)] = [...pieces[Math.min(k, into)]!, ...pieces[Math.max(k, into)]!];
      pieces.splice(Math.max(k, into), 1);
    }
    for (const p of pieces) spans.push({ start: p[0]!.start, end: p[p.length - 1]!.end, words: p });
  }
  return spans;
}

/**
 * Words take their span's speaker, and segments are cut where the speaker changes (a segment is
 * one speaker's, as diarized_json, srt and Deepgram's utterances show it).
 */
export function applySpeakers(t: Transcript, spans: ReturnType<typeof diarizationSpans>, labels: number[]): void {
  spans.forEach((s, i) => s.words.forEach((w) => (w.speaker = labels[i] ?? 0)));
  const segments: TranscriptSegment[] = [];
  for (const seg of t.segments) {
    let run: TranscriptWord[] = [];
    const flush = () => {
      if (run.length) segments.push({ ...segmentOf(run, segments.length), speaker: run[0]!.speaker ?? 0 });
      run = [];
    };
    for (const w of seg.words) {
      if (run.length && (w.speaker ?? 0) !== (run[0]!.speaker ?? 0)) flush();
      run.push(w);
    }
    flush();
  }
  t.segments = segments;
}
