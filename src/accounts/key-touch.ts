// last_used_at of a key, written at most once a minute per key and per node, so authenticating is
// not a database write per request. Shared by API-key authentication and the dashboard playground.

import type { Store } from '../storage/store.js';

const TOUCH_INTERVAL_MS = 60_000;
const TRACKED_MAX = 10_000;

export class KeyTouch {
  private readonly touched = new Map<string, number>();

  constructor(private readonly store: Store) {}

  touch(keyId: string, now = Date.now()): void {
    if (now - (this.touched.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    if (this.touched.size >= TRACKED_MAX) this.touched.clear();
    this.touched.set(keyId, now);
    // Best effort: a failed write of last_used_at must not fail the request.
    this.store.touchKey(keyId, new Date(now)).catch(() => this.touched.delete(keyId));
  }
}
