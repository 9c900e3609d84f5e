// One in-process node for the Wyoming benches (bench/wyoming.ts, bench/wyoming-stream.ts): the
// services, the HTTP API and the Wyoming server side by side, an enterprise key, each profile's
// decoders loaded at start; `close` ends all three and removes the data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { createServices, type Services } from '../../src/services.js';
import { createAccountWithKey } from '../../src/accounts/admin.js';
import { loadConfig } from '../../src/config.js';
import { WyomingServer } from '../../src/wyoming/server.js';

export interface WyomingBenchNode {
  services: Services;
  /** The HTTP API's base URL. */
  base: string;
  /** The Wyoming server's TCP port. */
  port: number;
  apiKey: string;
  close(): Promise<void>;
}

export async function startWyomingBenchNode(): Promise<WyomingBenchNode> {
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-bench-wy-'));
  const config = loadConfig({
    ...process.env,
    PARLA_DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    PARLA_SEED_DEMO: 'false',
    PORT: '0',
    PARLA_STT_PRELOAD: 'true',
  });
  const services = await createServices(config, pino({ level: 'warn' }) as never);
  const app = await buildApp(services, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const { rawKey } = await createAccountWithKey(services.store, config, {
    name: 'bench',
    plan: 'enterprise',
    keyName: 'bench',
    credits: 1_000_000_000,
    testCredits: 0,
    mode: 'live',
  });
  const wy = new WyomingServer(services, { apiKey: rawKey });
  const port = await wy.listen(0, '127.0.0.1');
  await services.registry.whenReady();
  return {
    services,
    base,
    port,
    apiKey: rawKey,
    async close() {
      await wy.close();
      await app.close();
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
