// From what sherpa-onnx returns for a decoded piece of audio (text, tokens, per-token start times)
// to timed words. Word boundaries: a token that begins with a space or SentencePiece's "▁" starts a
// word, and a token that is only a space separates words (NeMo character models have one).
//
// Timings: CTC and transducer models give each token's start time; a word then starts at its first
// token and ends where the next token starts (the last word: one typical token step after its last
// token, never past the speech). Whisper gives no token times unless its export has the
// cross-attention output, so there the words share the speech span of the piece in proportion to
// their length in characters (plus one, for the gap): even, monotonic, and right at the ends.

import type { RecognizedUtterance, WordTiming } from '../engine.js';

export interface DecodedPiece {
  text: string;
  tokens: string[];
  timestamps: number[];
  lang?: string;
}

interface TokenWord {
  text: string;
  first: number;
  last: number;
}

const round = (t: number) => Math.round(t * 1000) / 1000;

function tokenWords(tokens: string[]): TokenWord[] {
  const out: TokenWord[] = [];
  let cur: TokenWord | null = null;
  tokens.forEach((tok, i) => {
    const boundary = /^[\s▁]/u.test(tok);
    const body = tok.replace(/[\s▁]+/gu, '');
    if (boundary || cur === null) {
      if (cur && cur.text) out.push(cur);
      cur = { text: '', first: i, last: i };
    }
    if (body) {
      if (!cur.text) cur.first = i;
      cur.text += body;
      cur.last = i;
    }
  });
  if (cur !== null && (cur as TokenWord).text) out.push(cur);
  return out;
}

/**
 * The words of a decoded piece that starts at `offset` seconds on the audio's timeline and whose
 * speech spans [spanStart, spanEnd] (same timeline).
 */
export function piecesToWords(piece: DecodedPiece, offset: number, spanStart: number, spanEnd: number): WordTiming[] {
  // Rounded down to the millisecond: no word ends past the audio.
  const end = Math.floor(Math.max(spanStart, spanEnd) * 1000) / 1000;
  let words = tokenWords(piece.tokens);
  if (words.length === 0 && piece.text.trim()) {
    // Some models return text without tokens: the words of the text, without times.
    words = piece.text
      .trim()
      .split(/\s+/)
      .map((text) => ({ text, first: -1, last: -1 }));
  }
  if (words.length === 0) return [];
  const ts = piece.timestamps;
  if (ts.length === piece.tokens.length && ts.length > 0 && words[0]!.first >= 0) {
    const steps = ts
      .slice(1)
      .map((t, i) => t - ts[i]!)
      .filter((d) => d > 0);
    const step = steps.length ? steps.sort((a, b) => a - b)[Math.floor(steps.length / 2)]! : 0.04;
    const out: WordTiming[] = [];
    let prevEnd = spanStart;
    for (const w of words) {
      const start = Math.min(end, Math.max(prevEnd, round(offset + ts[w.first]!)));
      const next = ts[w.last + 1];
      const wordEnd = Math.min(end, Math.max(start, round(next !== undefined ? offset + next : offset + ts[w.last]! + step)));
      out.push({ word: w.text, start, end: wordEnd });
      prevEnd = wordEnd;
    }
    return out;
  }
  const weights = words.map((w) => w.text.length + 1);
  const total = weights.reduce((a, b) => a + b, 0);
  const span = end - spanStart;
  let at = spanStart;
  return words.map((w, i) => {
    const start = at;
    at = i === words.length - 1 ? end : at + (span * weights[i]!) / total;
    return { word: w.text, start: round(start), end: round(at) };
  });
}

export function utteranceOf(words: WordTiming[]): RecognizedUtterance | null {
  if (words.length === 0) return null;
  return { start: words[0]!.start, end: words[words.length - 1]!.end, words };
}
