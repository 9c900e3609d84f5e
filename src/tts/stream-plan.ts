// Groups markup items into sentences for /tts/stream: each group is synthesized and sent as soon
// as it is ready, and billed only if its audio was sent (decisions #30).

import { countCharacters, VOCALIZATION_CHARACTERS } from '../accounts/pricing.js';
import type { MarkupItem } from './markup.js';
import { splitSentences } from './sentences.js';
import { isCloser, isSentenceEnd, isSpace } from './text-scan.js';

/** Whether s ends a sentence: an end mark, then closing quotes or brackets and whitespace. */
function endsWithSentenceEnd(s: string): boolean {
  let i = s.length;
  while (i > 0 && isSpace(s.charCodeAt(i - 1))) i--;
  while (i > 0 && isCloser(s.charCodeAt(i - 1))) i--;
  return i > 0 && isSentenceEnd(s.charCodeAt(i - 1));
}

export interface SentenceGroup {
  items: MarkupItem[];
  /** Billable characters of this group (text without tags, plus its vocalizations as pricing.ts counts them). */
  characters: number;
}

/**
 * A group is rendered whole before it is sent: text between tags without a sentence end ("a<laugh>"
 * repeated) would otherwise make one group of the whole request, all of it in memory at once.
 */
const MAX_GROUP_ITEMS = 16;

export function groupIntoSentences(items: MarkupItem[]): SentenceGroup[] {
  const groups: SentenceGroup[] = [];
  let current: MarkupItem[] = [];
  let chars = 0;
  const flush = () => {
    if (current.length > 0) groups.push({ items: current, characters: chars });
    current = [];
    chars = 0;
  };
  for (const item of items) {
    if (item.type === 'break') continue;
    if (current.length >= MAX_GROUP_ITEMS) flush();
    if (item.type === 'vocal') {
      current.push(item);
      chars += VOCALIZATION_CHARACTERS;
      continue;
    }
    const sentences = splitSentences(item.text);
    sentences.forEach((s, i) => {
      current.push({ ...item, text: s });
      chars += countCharacters(s);
      // Every piece but the last ends a sentence; the last may continue in the next item.
      const endsSentence = i < sentences.length - 1 || endsWithSentenceEnd(s);
      if (endsSentence) flush();
    });
  }
  flush();
  return groups;
}
