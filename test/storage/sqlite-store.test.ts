import path from 'node:path';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/env.js';
import { runStoreContract } from './store-contract.js';

runStoreContract('SqliteStore', async () => {
  const tmp = tempDir();
  const store = new SqliteStore(path.join(tmp.dir, 'parla.db'));
  return { store, cleanup: async () => { await store.close(); tmp.cleanup(); } };
});
