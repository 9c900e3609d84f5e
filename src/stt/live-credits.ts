// A live stream's credits while it runs: opened by SttService.openLive (the first block held at the
// upgrade), grown as audio arrives, its lease kept alive while the stream is silent, settled once
// at the end for the started seconds received. Beside the service that opens it, below the live
// session (src/stt/live/session.ts), which asks it to cover each
// piece of audio before recognizing it, so a stream is never recognized past what it paid for.

import type { BillableWork } from '../accounts/billing.js';
import { billableSeconds } from '../accounts/pricing.js';
import { ApiError } from '../errors.js';

export interface LiveCreditTerms {
  /** Whole seconds of audio the first hold covers. */
  heldSeconds: number;
  creditsPerSecond: number;
  /** Seconds of audio the hold grows by at a time. */
  blockSeconds: number;
  /** How often the hold's lease is renewed when no audio grows it (a silent stream on KeepAlive). */
  refreshMs?: number;
}

export interface LiveBill {
  /** Seconds of audio received (paid for). */
  seconds: number;
  billedSeconds: number;
  credits: number;
}

export class LiveCredits {
  private held: number;
  private ranOut = false;
  private waived = false;
  private readonly refresh: NodeJS.Timeout;

  constructor(
    private readonly work: BillableWork,
    private readonly terms: LiveCreditTerms,
  ) {
    this.held = terms.heldSeconds;
    // Unsettled holds expire (a crashed node's credits come back); a live stream keeps its hold alive.
    this.refresh = setInterval(() => void work.hold.extend(0).catch(() => undefined), terms.refreshMs ?? 5 * 60_000);
    this.refresh.unref();
  }

  /** Whole seconds of audio the hold covers now. */
  get heldSeconds(): number {
    return this.held;
  }

  get creditsPerSecond(): number {
    return this.terms.creditsPerSecond;
  }

  /** The balance could not cover the audio any more (cover() answered false). */
  get exhausted(): boolean {
    return this.ranOut;
  }

  /**
   * Grows the hold so it covers every started second up to `upTo`: a block at a time, then smaller
   * steps when the balance is short, so the last credits are usable too. False when the balance
   * cannot cover it (the stream must end); other failures (the database) throw.
   */
  async cover(upTo: number): Promise<boolean> {
    while (!this.ranOut && billableSeconds(upTo) > this.held) {
      const need = billableSeconds(upTo) - this.held;
      let step = Math.max(need, this.terms.blockSeconds);
      for (;;) {
        try {
          await this.work.hold.extend(step * this.terms.creditsPerSecond);
          this.held += step;
          break;
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 'INSUFFICIENT_CREDITS')) throw err;
          if (step > need) {
            step = Math.max(need, Math.floor(step / 2));
            continue;
          }
          this.ranOut = true;
          return false;
        }
      }
    }
    return !this.ranOut;
  }

  /**
   * Settles once for `receivedSeconds` of audio (no further than the hold covers once the balance
   * ran out); nothing received releases the hold. A settle that fails (database gone) leaves the
   * hold to expire and be released; the bill is still told.
   */
  async settle(receivedSeconds: number): Promise<LiveBill> {
    clearInterval(this.refresh);
    if (this.waived) {
      await this.work.fail().catch(() => undefined);
      return { seconds: 0, billedSeconds: 0, credits: 0 };
    }
    const seconds = +(this.ranOut ? Math.min(receivedSeconds, this.held) : receivedSeconds).toFixed(3);
    const billed = seconds > 0 ? billableSeconds(seconds) : 0;
    const credits = billed * this.terms.creditsPerSecond;
    try {
      await this.work.finish(credits > 0 ? { units: billed, characters: 0, credits } : null);
    } catch {
      // The hold expires and is released.
    }
    return { seconds, billedSeconds: billed, credits };
  }

  /**
   * The work failed before the client got anything from it: settle() then gives the hold back and
   * bills nothing (decision #27; a Wyoming utterance refused before any of its words went out).
   */
  waive(): void {
    this.waived = true;
  }

  /** Gives the hold back (the stream never started, or its opening failed). Never throws. */
  async abandon(): Promise<void> {
    clearInterval(this.refresh);
    await this.work.fail();
  }
}
