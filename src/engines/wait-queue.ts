// A line of callers waiting for a scarce thing (a decoder, a process slot), where a caller whose
// request is aborted leaves the line at once. The decoder pools and Flite's process cap all need
// exactly this; written here once (no library offers the abort-aware hand-over) so none of them can
// forget the already-aborted signal or leave a dead waiter in line. Accounts take turns (decision
// #58): each caller is counted for the account it works for (currentTenant()), and give() serves
// the waiting account that was served least recently, first come first served within an account,
// so one account's many waiting requests cannot keep another's waiting behind all of them.

import { currentTenant } from '../domain/tenant.js';

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
  /** The account it waits for ('' for the node's own work: each such caller is served in its own turn order). */
  tenant: string | null;
}

export class WaitQueue<T> {
  private readonly waiters: Array<Waiter<T>> = [];
  /** Hand-over counter value when each account was last served (kept while it has callers waiting, and a while after). */
  private readonly served = new Map<string, number>();
  private handed = 0;

  /** Callers waiting now. */
  get length(): number {
    return this.waiters.length;
  }

  /**
   * Waits until give() hands a value to this caller. An aborted signal (already, or while
   * waiting) rejects with its reason and leaves the line, so nothing is ever handed to it.
   */
  wait(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      const waiter: Waiter<T> = {
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
        tenant: currentTenant(),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Hands the value to the longest-waiting caller; false (the value stays with the giver) when nobody waits. */
  give(value: T): boolean {
    const next = this.next();
    next?.resolve(value);
    return next !== undefined;
  }

  /** Fails the longest-waiting caller with err; false when nobody waits. */
  fail(err: unknown): boolean {
    const next = this.next();
    next?.reject(err);
    return next !== undefined;
  }

  /** Takes the first caller of the account served least recently (an account never served: first). */
  private next(): Waiter<T> | undefined {
    let best = -1;
    let bestServed = Infinity;
    for (let i = 0; i < this.waiters.length; i++) {
      const t = this.waiters[i]!.tenant;
      const s = t === null ? -1 : (this.served.get(t) ?? -1);
      if (s < bestServed) {
        best = i;
        bestServed = s;
        if (s === -1) break;
      }
    }
    if (best < 0) return undefined;
    const [w] = this.waiters.splice(best, 1);
    if (w!.tenant !== null) {
      // In the order served (delete, then set), so the oldest turns are the first forgotten.
      this.served.delete(w!.tenant);
      this.served.set(w!.tenant, this.handed++);
      if (this.served.size > 1024)
        for (const t of this.served.keys()) if (this.served.size > 512 && !this.waiters.some((x) => x.tenant === t)) this.served.delete(t);
    }
    return w;
  }
}

/**
 * A signal for waiting in a line at most `ms`: it aborts with the caller's own reason when the
 * caller's signal does, and with `overdue()` when the wait runs past its bound (so a wait for a
 * scarce thing always ends in an answer: the thing, or an overload refusal). `done()` once the
 * wait is over (the work that follows is not bounded by it).
 */
export function boundedWait(signal: AbortSignal | undefined, ms: number, overdue: () => Error): { signal: AbortSignal; done(): void } {
  const c = new AbortController();
  const forward = () => c.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  // Not unref'd: a caller waiting in line is work in progress, and gets its answer.
  const timer = setTimeout(() => c.abort(overdue()), ms);
  return {
    signal: c.signal,
    done: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    },
  };
}
