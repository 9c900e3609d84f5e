// A live stream's recognizer, held only while audio flows (docs/realtime.md, "Recognizers"): the
// session gives it back after a short time without audio and takes one again when audio resumes.
// Before, a socket kept its decoder for its whole life, so a few sockets sending only KeepAlive
// held every decoder of the node and other accounts' requests waited without an answer. Each
// engine stream's timeline starts at 0 when it is opened; this one shifts every time it reports by
// where on the session's timeline its current engine stream began, so the transcript stays
// continuous across a release and a re-attach.

import type { RecognizedUtterance, SttStream } from '../../engines/engine.js';

/** Audio (seconds) between two keyword changes on one stream (decision #76). */
export const REKEY_EVERY_SECONDS = 1;
/**
 * How long a keyterm switch may wait for its boosted recognizer (decision #97): usually one is made
 * for it (a decoder loaded and its words pronounced: seconds on a busy node), which the plain wait
 * bound, meant for recognizers busy with other streams, refused while the audio waited.
 */
export const KEYTERM_SWITCH_WAIT_MS = 30_000;

export class LiveRecognizer {
  private stream: SttStream | null;
  /** Seconds on the session's timeline where the current engine stream's 0 is. */
  private offset = 0;
  private closed = false;

  constructor(
    /** The stream opened at the upgrade (attached from the start), or null. */
    first: SttStream | null,
    /** Opens another engine stream boosting `keywords`; rejects (503 SERVICE_OVERLOADED) when none frees up within its bound. */
    private readonly reopen: ((keywords: readonly string[], waitMs?: number) => Promise<SttStream>) | null,
    /** The words the stream's recognizer boosts; a Configure may change them (session.setKeywords). */
    public keywords: readonly string[] = [],
  ) {
    this.stream = first;
  }

  /** Keywords to boost from the next utterance (the latest asked wins); null: none asked. */
  private wanted: readonly string[] | null = null;
  /** Where on the session's timeline the keywords last changed. */
  private rekeyedAt = -Infinity;
  /** The keywords changed since the last recognizer was taken: the next one is a switch. */
  private switching = false;

  /** Asks for keywords; true when none were asked for since the last rekey(). */
  want(keywords: readonly string[]): boolean {
    const first = this.wanted === null;
    this.wanted = [...keywords];
    return first;
  }

  /**
   * At an utterance boundary `now` seconds into the stream: makes the keywords asked for the
   * stream's; true when they differ (the recognizer held must be given back). At most one change
   * per REKEY_EVERY_SECONDS of audio, so a client alternating Configure and Finalize with a frame
   * of audio cannot make the node reload a decoder per frame; a later boundary applies it.
   */
  rekey(now: number): boolean {
    const k = this.wanted;
    if (!k || now - this.rekeyedAt < REKEY_EVERY_SECONDS) return false;
    this.wanted = null;
    if (k.length === this.keywords.length && k.every((w, i) => w === this.keywords[i])) return false;
    this.keywords = k;
    this.rekeyedAt = now;
    this.switching = true;
    return true;
  }

  get attached(): boolean {
    return this.stream !== null;
  }

  /** Whether this recognizer may be given back while idle (it can take another one later). */
  get detachable(): boolean {
    return this.reopen !== null;
  }

  /** Feeds audio that starts at `at` seconds on the session's timeline, taking a recognizer first when none is held. */
  async write(pcm16k: Int16Array, at: number): Promise<void> {
    if (this.closed) throw new Error('recognizer closed');
    if (!this.stream) {
      if (!this.reopen) throw new Error('recognizer released and cannot be taken again');
      this.stream = await this.reopen(this.keywords, this.switching ? KEYTERM_SWITCH_WAIT_MS : undefined);
      this.switching = false;
      // Started at its first write (the engine's timeline runs from the audio fed since opening).
      this.offset = at;
    }
    await this.stream.write(pcm16k);
  }

  async partial(): Promise<RecognizedUtterance | null> {
    return this.shift(this.stream ? await this.stream.partial() : null);
  }

  async finalizeUtterance(): Promise<RecognizedUtterance | null> {
    return this.shift(this.stream ? await this.stream.finalizeUtterance() : null);
  }

  /** Gives the recognizer back; the utterance in progress is finalized first and returned. */
  async detach(): Promise<RecognizedUtterance | null> {
    const s = this.stream;
    if (!s) return null;
    let u: RecognizedUtterance | null = null;
    try {
      u = this.shift(await s.finalizeUtterance());
    } finally {
      this.stream = null;
      await s.close().catch(() => undefined);
    }
    return u;
  }

  async close(): Promise<void> {
    this.closed = true;
    const s = this.stream;
    this.stream = null;
    await s?.close();
  }

  private shift(u: RecognizedUtterance | null): RecognizedUtterance | null {
    if (!u || this.offset === 0) return u;
    const d = this.offset;
    const at = (x: number) => +(x + d).toFixed(3);
    return { ...u, start: at(u.start), end: at(u.end), words: u.words.map((w) => ({ ...w, start: at(w.start), end: at(w.end) })) };
  }
}
