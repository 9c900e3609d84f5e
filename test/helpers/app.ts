// Builds real services and the real app for HTTP tests (app.inject()), and accounts with keys.

import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createServices, type Services } from '../../src/services.js';
import { createAccountWithKey, createApiKey } from '../../src/accounts/admin.js';
import type { KeyMode, Plan } from '../../src/domain/accounts.js';
import { tempDir, testConfig } from './env.js';

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  close(): Promise<void>;
}

export async function createTestApp(
  env: Record<string, string | undefined> = {},
  opts: { logger?: unknown; beforeReady?: (app: FastifyInstance) => void; servicesLog?: unknown } = {},
): Promise<TestApp> {
  const tmp = tempDir();
  const config = testConfig(env, tmp.dir);
  const services = await createServices(config, (opts.servicesLog ?? (await import('pino')).pino({ level: 'silent' })) as never);
  const app = await buildApp(services, { logger: (opts.logger as never) ?? false });
  opts.beforeReady?.(app);
  await app.ready();
  return {
    app,
    services,
    async close() {
      await app.close();
      await services.close();
      tmp.cleanup();
    },
  };
}

export async function createTestAccount(
  services: Services,
  opts: { plan?: Plan; credits?: number; testCredits?: number; mode?: KeyMode } = {},
): Promise<{ accountId: string; apiKey: string; keyId: string; testKey: string }> {
  const { account, key, rawKey } = await createAccountWithKey(services.store, services.config, {
    name: 'Test account',
    plan: opts.plan ?? 'pro',
    keyName: 'test',
    credits: opts.credits ?? 100_000,
    testCredits: opts.testCredits ?? 50_000,
    mode: opts.mode ?? 'live',
  });
  const test = await createApiKey(services.store, services.config, { accountId: account.id, name: 'test-mode', mode: 'test' });
  return { accountId: account.id, apiKey: rawKey, keyId: key.id, testKey: test.rawKey };
}
