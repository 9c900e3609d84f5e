// Wyoming's streamed transcript is append-only: each `transcript-chunk` is the next part of the
// text, and the `transcript` that follows is the chunks joined (decision #48). A live recognizer's
// hypothesis is not: its last words change as more audio comes, and its final result may differ
// from its last interim one. So a word goes out only once it looks settled: from interim
// results, a word that two hypotheses in a row agree on, up to it, leaving out the last HOLD words
// of each (the end of a hypothesis is what moves), and only while the hypotheses still begin with
// the words already sent for the utterance; from the final result, the rest. Should the final
// disagree with words already sent, those stand and the final adds its words heard after them (by
// their times), so the text never contradicts itself. Measured on PocketSphinx (cipher-fast), one
// hypothesis alone with one word held back was contradicted by the final in most utterances
// ("jumps" then "jumped", "sells the" then "seashells"); two in agreement with two held, in none of
// the tests' sentences.

import type { LiveWord } from '../stt/live/session-output.js';

/** Words at the end of an interim hypothesis that are not sent yet (they still change). */
export const HOLD = 2;

export class TranscriptChunks {
  /** Every chunk so far, joined: the transcript. */
  private sent = '';
  /** Words of the utterance in progress already sent, and where the last of them ends (s). */
  private utterance: string[] = [];
  private heardUpTo = 0;
  /** The settled words of the last interim hypothesis of the utterance. */
  private previous: readonly LiveWord[] = [];
  /** Finals whose words disagreed with what was sent (for the tests and the logs). */
  revisions = 0;

  get text(): string {
    return this.sent;
  }

  /** An interim hypothesis of the utterance in progress: the chunk it settles, or null. */
  interim(words: readonly LiveWord[]): string | null {
    const settled = words.slice(0, Math.max(0, words.length - HOLD));
    let agreed = 0;
    while (
      agreed < settled.length &&
      agreed < this.previous.length &&
      settled[agreed]!.punctuated_word === this.previous[agreed]!.punctuated_word
    )
      agreed++;
    this.previous = settled;
    const confirmed = settled.slice(0, agreed);
    if (!this.continues(confirmed)) return null;
    return this.take(confirmed.slice(this.utterance.length));
  }

  /** The utterance's final result: the chunk that completes it (null when nothing is left), and the next utterance begins. */
  final(words: readonly LiveWord[]): string | null {
    let rest: readonly LiveWord[];
    if (this.continues(words)) rest = words.slice(this.utterance.length);
    else {
      this.revisions++;
      rest = words.filter((w) => w.start >= this.heardUpTo);
    }
    const chunk = this.take(rest);
    this.utterance = [];
    this.previous = [];
    return chunk;
  }

  /** Whether `words` begin with the words of the utterance already sent. */
  private continues(words: readonly LiveWord[]): boolean {
    if (words.length < this.utterance.length) return false;
    return this.utterance.every((w, i) => words[i]!.punctuated_word === w);
  }

  private take(words: readonly LiveWord[]): string | null {
    if (words.length === 0) return null;
    const text = words.map((w) => w.punctuated_word);
    const chunk = (this.sent === '' ? '' : ' ') + text.join(' ');
    this.sent += chunk;
    this.utterance.push(...text);
    this.heardUpTo = Math.max(this.heardUpTo, ...words.map((w) => w.end));
    return chunk;
  }
}
