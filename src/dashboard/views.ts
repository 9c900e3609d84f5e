// Domain records -> the JSON the dashboard API sends (snake_case, ISO 8601 or null).

import { effectiveKeyState } from '../accounts/api-keys.js';
import type { Account, ApiKeyRecord, ApiKeyWithUsage } from '../domain/accounts.js';

export function accountView(a: Account) {
  return { id: a.id, name: a.name, email: a.email, plan: a.plan };
}

export function keyView(k: ApiKeyRecord | ApiKeyWithUsage, now: Date = new Date()) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    mode: k.mode,
    state: effectiveKeyState(k, now),
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    expires_at: k.expiresAt?.toISOString() ?? null,
    requests: 'requests' in k ? k.requests : 0,
    credits_used: 'creditsUsed' in k ? k.creditsUsed : 0,
  };
}
