// punctuate: sentence capitalization and end punctuation from the timing of the words. A pause of
// SENTENCE_GAP or more (or the end of an utterance) ends a sentence; a sentence ends with "?" when
// it reads as a question (isQuestion), others with "."; pauses of COMMA_GAP or more inside a
// sentence get a comma. "i" and its contractions, days and most months are capitalized.

import type { WordTiming } from '../engines/engine.js';

export const SENTENCE_GAP = 0.7;
export const COMMA_GAP = 0.35;
const WH_WORDS = new Set(['who', 'what', 'when', 'where', 'why', 'how', 'which', 'whose', 'whom']);
const AUXILIARIES = new Set([
  'is',
  'are',
  'was',
  'were',
  'am',
  'do',
  'does',
  'did',
  'can',
  'could',
  'would',
  'will',
  'should',
  'shall',
  'may',
  'might',
  'must',
  'have',
  'has',
  'had',
  "isn't",
  "aren't",
  "wasn't",
  "weren't",
  "don't",
  "doesn't",
  "didn't",
  "can't",
  "couldn't",
  "won't",
  "wouldn't",
  "shouldn't",
  "haven't",
  "hasn't",
]);
/** What follows an auxiliary that asks: its subject ("is it", "did the train", "can you"). */
const SUBJECTS = new Set([
  'i',
  'you',
  'he',
  'she',
  'it',
  'we',
  'they',
  'there',
  'this',
  'that',
  'these',
  'those',
  'the',
  'my',
  'your',
  'his',
  'her',
  'its',
  'our',
  'their',
  'anyone',
  'anybody',
  'anything',
  'someone',
  'somebody',
  'something',
  'everyone',
  'everybody',
  'everything',
  'no',
  'any',
  'some',
  'all',
]);
/**
 * Auxiliaries that also open a conditional by inversion ("had he married ..., he might have ...",
 * "should you need ..., call"): a question only when no main clause follows.
 */
const CONDITIONAL_OPENERS = new Set(['had', 'were', 'should']);
const MAIN_CLAUSE_MARKERS = new Set([
  'would',
  'could',
  'might',
  'will',
  'shall',
  "i'd",
  "you'd",
  "he'd",
  "she'd",
  "we'd",
  "they'd",
  "i'll",
  "you'll",
  "he'll",
  "she'll",
  "we'll",
  "they'll",
  'then',
  'please',
  'call',
]);

/**
 * A question opens with a question word, or with an auxiliary followed by its subject ("is it",
 * "had you"); an auxiliary before anything else is an imperative or a statement ("have a nice
 * day", "do not touch"), and an inverted conditional with its main clause is a statement.
 */
export function isQuestion(sentence: readonly string[]): boolean {
  const first = sentence[0];
  if (first === undefined) return false;
  if (WH_WORDS.has(first)) return !(first === 'what' && (sentence[1] === 'a' || sentence[1] === 'an'));
  if (!AUXILIARIES.has(first)) return false;
  const second = sentence[1];
  if (second === undefined || !(SUBJECTS.has(second) || (first.endsWith("n't") && second !== 'not'))) return false;
  if (CONDITIONAL_OPENERS.has(first) && sentence.slice(2).some((w) => MAIN_CLAUSE_MARKERS.has(w))) return false;
  return true;
}

export interface PunctuatedToken {
  /** The word as it appears in punctuated text (capitalized, with trailing punctuation). */
  text: string;
  word: WordTiming;
}

function capitalize(s: string): string {
  return s.length ? s[0]!.toUpperCase() + s.slice(1) : s;
}

// Names of days and months are proper nouns; "may" and "march" are more often verbs and stay as said.
const PROPER = new Set([
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'january',
  'february',
  'april',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]);

function fixI(w: string): string {
  if (PROPER.has(w)) return capitalize(w);
  return /^i('(m|ll|ve|d|s))?$/.test(w) ? `I${w.slice(1)}` : w;
}

/** utteranceEnds: indexes of words that end a recognizer utterance (always a sentence end). */
export function punctuate(words: WordTiming[], utteranceEnds: Set<number> = new Set()): PunctuatedToken[] {
  const tokens: PunctuatedToken[] = [];
  let sentenceStart = 0;
  const endSentence = (endIdx: number) => {
    const sentence = words.slice(sentenceStart, endIdx + 1).map((w) => w.word.toLowerCase());
    const mark = isQuestion(sentence) ? '?' : '.';
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
