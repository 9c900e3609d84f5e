// The SDK installed exactly as packages/client/README.md says, into a fresh project: `npm install
// /path/to/parla/packages/client`, then `import('@parla/client')` and one real call to a server.
// The package is copied without any build output into a clone-like folder (its node_modules is the
// repository's, as after `npm start`), so the test fails unless the install itself builds it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { startServer, type RunningServer } from '../../src/server.js';
import { createAccountWithKey } from '../../src/accounts/admin.js';
import { tempDir, testConfig } from '../helpers/env.js';
import { ROOT } from '../helpers/root.js';

const run = promisify(execFile);
const root = ROOT;
const tmp = tempDir('parla-sdk-install-');
let server: RunningServer;
let apiKey: string;

before(async () => {
  server = await startServer(testConfig({}, path.join(tmp.dir, 'data')));
  ({ rawKey: apiKey } = await createAccountWithKey(server.services.store, server.services.config, {
    name: 'sdk',
    plan: 'pro',
    keyName: 'sdk',
    credits: 1000,
  }));
});
after(async () => {
  await server.stop();
  tmp.cleanup();
});

test('npm install /path/to/parla/packages/client builds the SDK, and a fresh project imports it and calls the server', async () => {
  const clone = path.join(tmp.dir, 'parla');
  const pkg = path.join(clone, 'packages', 'client');
  mkdirSync(pkg, { recursive: true });
  for (const f of ['package.json', 'tsconfig.json', 'README.md', 'src'])
    cpSync(path.join(root, 'packages/client', f), path.join(pkg, f), { recursive: true });
  symlinkSync(path.join(root, 'node_modules'), path.join(clone, 'node_modules'));
  assert.equal(existsSync(path.join(pkg, 'dist')), false);

  const app = path.join(tmp.dir, 'my-app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
  const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
  await run('npm', ['install', pkg], { cwd: app, env, timeout: 120_000 });

  const script = `
    const { ParlaClient } = await import('@parla/client');
    const parla = new ParlaClient();
    const models = await parla.models.list();
    const credits = await parla.credits.get();
    console.log(JSON.stringify({ models: models.length, credits: credits.credits }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: app,
    env: { ...env, PARLA_URL: server.url, PARLA_API_KEY: apiKey },
    timeout: 60_000,
  });
  assert.deepEqual(JSON.parse(stdout), { models: 5, credits: 1000 });
});
