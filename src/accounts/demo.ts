// First start with an empty database: one demo account (plan pro) and one live key, printed once.

import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import { createAccountWithKey } from './admin.js';

export interface DemoSeed {
  accountId: string;
  apiKey: string;
  announcement(baseUrl: string): string;
}

export async function seedDemoAccount(store: Store, config: Config): Promise<DemoSeed | null> {
  if ((await store.countAccounts()) > 0) return null;
  const { account, rawKey } = await createAccountWithKey(store, config, { name: 'Demo', plan: 'pro', keyName: 'demo key' });
  return {
    accountId: account.id,
    apiKey: rawKey,
    announcement: (baseUrl) =>
      [
        '',
        'Parla created a demo account (plan pro) with this API key. It is shown only once: keep it.',
        '',
        `  ${rawKey}`,
        '',
        'Try it:',
        `  curl -s ${baseUrl}/api/v1/user/credits -H "X-API-Key: ${rawKey}"`,
        `  curl -s ${baseUrl}/api/v1/tts/generate -H "X-API-Key: ${rawKey}" -H "Content-Type: application/json" \\`,
        `       -d '{"text":"Hello from Parla.","voice":"Aria"}' -o hello.wav`,
        '',
        `API reference: ${baseUrl}/docs`,
        `Dashboard: ${baseUrl}/dashboard (give the account a sign-in first:`,
        `  node bin/parla.js accounts set-password ${account.id} --email you@example.com --password-stdin)`,
        '',
      ].join('\n'),
  };
}
