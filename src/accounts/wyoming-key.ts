// The key Wyoming bills to when WYOMING_API_KEY is unset (docs/operations.md "Wyoming"): Wyoming
// carries no credentials, and a key only exists once the database does, so the first start that
// seeds the demo account also makes it a key named "wyoming" and keeps it in
// <dataDir>/wyoming-api-key (mode 0600), read again by every later start. Without that file and
// without a demo account made by this start, the operator names the key: WYOMING_API_KEY.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import type { Store } from '../storage/store.js';
import { createApiKey } from './admin.js';

export const WYOMING_KEY_FILE = 'wyoming-api-key';

export async function wyomingKey(d: {
  config: Config;
  store: Store;
  log: FastifyBaseLogger;
  demoAccountId: string | null;
}): Promise<string> {
  const file = path.join(d.config.dataDir, WYOMING_KEY_FILE);
  const kept = await readFile(file, 'utf8').then(
    (s) => s.trim(),
    () => null,
  );
  if (kept) {
    d.log.info({ file }, 'WYOMING_API_KEY is unset: Wyoming bills to the key kept in the data directory');
    return kept;
  }
  if (d.demoAccountId === null) {
    throw new ConfigError(
      `WYOMING_PORT needs WYOMING_API_KEY (the key whose account Wyoming requests are billed to): create one with \`parla keys create --account ID --name wyoming\` and set WYOMING_API_KEY=<the key> in .env. (Only the first start, which makes the demo account, makes one by itself: ${file}.)`,
    );
  }
  const { rawKey } = await createApiKey(d.store, d.config, { accountId: d.demoAccountId, name: 'wyoming', mode: 'live' });
  await writeFile(file, `${rawKey}\n`, { mode: 0o600 });
  d.log.warn(
    { file, account: d.demoAccountId },
    'WYOMING_API_KEY is unset: Wyoming requests are billed to the demo account, with a key named "wyoming" kept in the data directory (set WYOMING_API_KEY to bill another account)',
  );
  return rawKey;
}
