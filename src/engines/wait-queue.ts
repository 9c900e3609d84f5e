// A first-come first-served line of callers waiting for a scarce thing (a decoder, a process
// slot), where a caller whose request is aborted leaves the line at once. The decoder pools and
// Flite's process cap all need exactly this; written here once (a dozen lines, no library offers
// the abort-aware hand-over) so none of them can forget the already-aborted signal or leave a
// dead waiter in line.

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
}

export class WaitQueue<T> {
  private readonly waiters: Array<Waiter<T>> = [];

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
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Hands the value to the longest-waiting caller; false (the value stays with the giver) when nobody waits. */
  give(value: T): boolean {
    const next = this.waiters.shift();
    next?.resolve(value);
    return next !== undefined;
  }

  /** Fails the longest-waiting caller with err; false when nobody waits. */
  fail(err: unknown): boolean {
    const next = this.waiters.shift();
    next?.reject(err);
    return next !== undefined;
  }
}
