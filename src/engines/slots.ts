// A cap on work running at once (Flite's processes or threads): a caller takes a slot or waits in
// line (WaitQueue: an abort leaves the line, accounts take turns). A finishing caller hands its slot
// straight to the next in line, so no newcomer can slip in between and run one too many.

import { WaitQueue } from './wait-queue.js';

export class Slots {
  private used = 0;
  private readonly waiting = new WaitQueue<void>();

  constructor(readonly max: number) {}

  /** Slots taken now. */
  get running(): number {
    return this.used;
  }

  /** Resolves with the release function once a slot is this caller's. */
  async take(signal?: AbortSignal): Promise<() => void> {
    if (this.used < this.max) this.used++;
    else await this.waiting.wait(signal);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (!this.waiting.give()) this.used--;
    };
  }
}
