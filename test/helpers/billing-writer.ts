// A write-heavy billing loop (hold + settle forever) for the SQLite crash test, run as its own process.
import { randomUUID } from 'node:crypto';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

const [file, accountId] = process.argv.slice(2) as [string, string];
const store = new SqliteStore(file);
await store.migrate();
process.stdout.write('ready\n');
for (;;) {
  const holdId = randomUUID();
  const r = await store.holdCredits({
    holdId,
    accountId,
    mode: 'live',
    credits: 3,
    characters: 3,
    characterLimit: null,
    periodStart: new Date(0),
    expiresAt: new Date(Date.now() + 60_000),
  });
  if (!r.ok) break;
  await store.settleHold(holdId, {
    requestId: randomUUID(),
    accountId,
    keyId: 'key_x',
    mode: 'live',
    kind: 'tts',
    model: 'aura-lite',
    units: 2,
    characters: 2,
    credits: 2,
    createdAt: new Date(),
  });
}
