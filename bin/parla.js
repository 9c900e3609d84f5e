#!/usr/bin/env node
// The `parla` command. Runs the compiled CLI (`npm run build` produces dist/).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/run.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('parla: not built yet; run `npm run build` (or `npm start`) in the Parla directory first.\n');
  process.exit(1);
}
await import(entry.href);
