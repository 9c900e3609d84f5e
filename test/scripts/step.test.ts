// `npm start` and `npm test` set up and build in steps (scripts/lib/step.sh): one line per step,
// the tools' own output only when a step fails, in full, and the failure stops the script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/root.js';

const root = ROOT;

function bash(script: string) {
  const res = spawnSync('bash', ['-c', `set -euo pipefail; . scripts/lib/step.sh; ${script}`], { cwd: root, encoding: 'utf8' });
  return { status: res.status, out: res.stdout, err: res.stderr };
}

test('a step that succeeds prints one line, however much its command printed', () => {
  const r = bash(`step "build: noisy" sh -c 'seq 1 40; echo "gyp info spawn args" >&2'; echo after`);
  assert.equal(r.status, 0);
  assert.match(r.out, /^build: noisy \.\.\. ok \(\d+ s\)\nafter\n$/);
  assert.equal(r.err, '');
});

test('a step that fails shows its whole output on stderr and stops the script with its exit status', () => {
  const r = bash(`step "build: broken" sh -c 'seq 1 40; echo "addon.cc:607: error: expected unqualified-id" >&2; exit 3'; echo never`);
  assert.equal(r.status, 3);
  assert.equal(r.out, 'build: broken ... FAILED (exit 3)\n');
  const lines = r.err.split('\n');
  for (let i = 1; i <= 40; i++) assert.ok(lines.includes(String(i)), `line ${i} of the log is shown`);
  assert.match(r.err, /addon\.cc:607: error: expected unqualified-id/);
});

test('setup and build run every tool that talks (apt-get, npm install, node-gyp, tsc, vite) as a step', () => {
  const scripts = ['setup.sh', 'build.sh', 'build-dashboard.sh'].map((f) => readFileSync(path.join(root, 'scripts', f), 'utf8'));
  for (const s of scripts) assert.match(s, /^\. scripts\/lib\/step\.sh$/m);
  const commands = scripts
    .flatMap((s) => s.split('\n'))
    .filter(
      (l) => /apt-get (update|install)|npm install|node-gyp|typescript\/bin\/tsc|vite\.js build/.test(l) && !l.trim().startsWith('#'),
    );
  assert.ok(commands.length >= 5, commands.join('\n'));
  for (const l of commands) assert.match(l.trim(), /^step "(setup|build): [^"]+" /, l);
});
