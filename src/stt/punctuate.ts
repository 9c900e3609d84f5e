// punctuate: sentence capitalization and end punctuation from the timing of the words. A pause of
// SENTENCE_GAP or more (or the end of an utterance) ends a sentence; a sentence that opens with a
// question word or an auxiliary verb ends with "?", others with "."; pauses of COMMA_GAP or more
// inside a sentence get a comma. "i" and its contractions, days and most months are capitalized.

import type { WordTiming } from '../engines/engine.js';

export const SENTENCE_GAP = 0.7;
export const COMMA_GAP = 0.35;
const QUESTION_OPENERS = new Set([
  'who', 'what', 'when', 'where', 'why', 'how', 'which', 'whose', 'whom',
  'is', 'are', 'was', 'were', 'am', 'do', 'does', 'did', 'can', 'could', 'would', 'will', 'should', 'shall', 'may', 'might', 'must', 'have', 'has', 'had',
  "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't", "can't", "couldn't", "won't", "wouldn't", "shouldn't", "haven't", "hasn't",
]);

export interface PunctuatedToken {
  /** The word as it appears in punctuated text (capitalized, with trailing punctuation). */
  text: string;
  word: WordTiming;
}

function capitalize(s: string): string {
  return s.length ? s[0]!.toUpperCase() + s.slice(1) : s;
}

// Names of days and months are proper nouns; "may" and "march" are more often verbs and stay as said.
const PROPER = new Set(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'january', 'february', 'april', 'june', 'july', 'august', 'september', 'october', 'november', 'december']);

function fixI(w: string): string {
  if (PROPER.has(w)) return capitalize(w);
  return /^i('(m|ll|ve|d|s))?$/.test(w) ? `I${w.slice(1)}` : w;
}

/** utteranceEnds: indexes of words that end a recognizer utterance (always a sentence end). */
export function punctuate(words: WordTiming[], utteranceEnds: Set<number> = new Set()): PunctuatedToken[] {
  const tokens: PunctuatedToken[] = [];
  let sentenceStart = 0;
  const endSentence = (endIdx: number) => {
    const first = words[sentenceStart]?.word.toLowerCase() ?? '';
    const mark = QUESTION_OPENERS.has(first) ? '?' : '.';
    const last = tokens[endIdx]!;
    last.text = `${last.text.replace(/,$/, '')}${/[.?!]$/.test(last.text) ? '' : mark}`;
    sentenceStart = endIdx + 1;
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    let text = fixI(w.word);
    if (i === sentenceStart) text = capitalize(text);
    tokens.push({ text, word: w });
    const next = words[i + 1];
    const gap = next ? next.start - w.end : Infinity;
    if (!next || utteranceEnds.has(i) || gap >= SENTENCE_GAP) endSentence(i);
    else if (gap >= COMMA_GAP) tokens[i]!.text += ',';
  }
  return tokens;
}

export function punctuatedText(words: WordTiming[], utteranceEnds?: Set<number>): string {
  return punctuate(words, utteranceEnds)
    .map((t) => t.text)
    .join(' ');
}
