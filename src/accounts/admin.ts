// Operator actions shared by the CLI, the demo seed and the tests.

import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import { generateApiKey, hashApiKey, keyPrefix } from './api-keys.js';
import type { Account, ApiKeyRecord, KeyMode, Plan } from '../domain/accounts.js';

export async function createApiKey(
  store: Store,
  config: Config,
  input: { accountId: string; name: string; mode: KeyMode; expiresAt?: Date | null },
): Promise<{ key: ApiKeyRecord; rawKey: string }> {
  const rawKey = generateApiKey(input.mode);
  const key = await store.createKey({
    accountId: input.accountId,
    name: input.name,
    mode: input.mode,
    hash: hashApiKey(config.keySecret, rawKey),
    prefix: keyPrefix(rawKey),
    expiresAt: input.expiresAt ?? null,
  });
  return { key, rawKey };
}

export async function createAccountWithKey(
  store: Store,
  config: Config,
  input: {
    name: string;
    plan: Plan;
    keyName: string;
    credits?: number;
    testCredits?: number;
    mode?: KeyMode;
    email?: string | null;
    passwordHash?: string | null;
  },
): Promise<{ account: Account; key: ApiKeyRecord; rawKey: string }> {
  const account = await store.createAccount({
    name: input.name,
    plan: input.plan,
    credits: input.credits ?? config.product.newAccountCredits.live,
    testCredits: input.testCredits ?? config.product.newAccountCredits.test,
    email: input.email ?? null,
    passwordHash: input.passwordHash ?? null,
  });
  const { key, rawKey } = await createApiKey(store, config, { accountId: account.id, name: input.keyName, mode: input.mode ?? 'live' });
  return { account, key, rawKey };
}
