// The account that the work in the current async context is done for, so that the shared waiting
// lines below the services (the engine pool's task queue, the decoder processes) can serve
// accounts in turn instead of first come, first served (decision #58). Set by the services, which
// know the caller (SttService.transcribe, TtsService), read where work waits; on the ground floor
// so that every floor may read it without knowing what an account is.

import { AsyncLocalStorage } from 'node:async_hooks';

const tenants = new AsyncLocalStorage<string>();

/** Runs fn with `accountId` as the tenant of everything it starts, however deep. */
export function asTenant<T>(accountId: string, fn: () => T): T {
  return tenants.getStore() === accountId ? fn() : tenants.run(accountId, fn);
}

/** The tenant of the current async context, or null outside any (work of the node itself). */
export function currentTenant(): string | null {
  return tenants.getStore() ?? null;
}
