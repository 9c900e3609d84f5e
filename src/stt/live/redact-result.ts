// Redaction on a live stream, for every protocol's output (Deepgram's and the native socket's):
// final results are redacted, interim results withheld while redacting, as Deepgram documents
// (an interim could show what its final hides: a card number half said). decision #44.

import { redacting, redactWords, type RedactOptions } from '../redact.js';
import type { LiveResult } from './session-output.js';

export class LiveRedactor {
  /** Numbers the redactions across the stream's results ([CREDIT_CARD_1], [CREDIT_CARD_2], ...). */
  private readonly counters = new Map<string, number>();

  constructor(private readonly o: RedactOptions | undefined) {}

  /** The result to send, or null to withhold it. */
  apply(r: LiveResult): LiveResult | null {
    if (!this.o || !redacting(this.o)) return r;
    if (!r.isFinal) return null;
    const words = redactWords(
      r.words.map((w) => ({ ...w, punctuated: w.punctuated_word })),
      this.o,
      this.counters,
    ).map(({ punctuated, ...w }) => ({ ...w, punctuated_word: punctuated, confidence: w.confidence ?? 0 }));
    return { ...r, words, transcript: words.map((w) => w.punctuated_word).join(' ') };
  }
}
