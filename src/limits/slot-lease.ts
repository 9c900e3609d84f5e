// One concurrency slot held by work that outlives the HTTP hook that admits API requests (a live
// stream, a Wyoming conversation, a speak socket, a job run): taken once, renewed while the work
// runs (so a crashed node's slots free themselves when their lease ends, SLOT_LEASE_MS), released
// exactly once. One helper instead of a hand-written timer and release flag per edge.

import type { PlanConfig } from '../config.js';
import type { Account } from '../domain/accounts.js';
import type { Limiter } from './limiter.js';
import { admitRequest, SLOT_LEASE_MS } from './admission.js';

export class SlotLease {
  private released = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly limiter: Limiter,
    readonly accountId: string,
    readonly slotId: string,
    private readonly leaseMs = SLOT_LEASE_MS,
  ) {}

  /**
   * Extends the lease now. A failure is dropped: the next renewal tries again, and a lost slot
   * frees itself when its lease ends. (Arrow properties, so `setInterval(lease.renew, ...)` works.)
   */
  readonly renew = (): void => {
    if (this.released) return;
    void Promise.resolve(this.limiter.renewSlot(this.accountId, this.slotId, this.leaseMs)).catch(() => undefined);
  };

  /** Renews every `everyMs` (a third of the lease by default) until released; the timer never keeps the process up. */
  keepAlive(everyMs = this.leaseMs / 3): this {
    if (this.released || this.timer) return this;
    this.timer = setInterval(() => this.renew(), everyMs);
    this.timer.unref();
    return this;
  }

  /** Frees the slot; only the first call does. Never rejects (the limiter frees it at the lease's end if it cannot now). */
  readonly release = (): Promise<void> => {
    if (this.released) return Promise.resolve();
    this.released = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return Promise.resolve(this.limiter.releaseSlot(this.accountId, this.slotId)).catch(() => undefined);
  };
}

/** The plan's rate windows and one concurrency slot, as an API request takes them (admitRequest); throws the 429 refusal. */
export async function admitLease(limiter: Limiter, account: Account, plan: PlanConfig): Promise<SlotLease> {
  const admitted = await admitRequest(limiter, account, plan, SLOT_LEASE_MS);
  if (admitted.refusal) throw admitted.refusal;
  return new SlotLease(limiter, account.id, admitted.slotId);
}

/** One concurrency slot, not counted as a request (a job run): the lease, or the seconds until one may free. */
export async function acquireLease(
  limiter: Limiter,
  accountId: string,
  max: number,
): Promise<{ lease: SlotLease } | { lease: null; retryAfter: number }> {
  const slot = await limiter.acquireSlot(accountId, max, SLOT_LEASE_MS);
  return slot.ok ? { lease: new SlotLease(limiter, accountId, slot.slotId) } : { lease: null, retryAfter: slot.retryAfter };
}
