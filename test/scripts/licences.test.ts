// The licence check (scripts/licences.mjs, docs/licensing.md): SPDX expressions against the allow
// list, a copyleft package entering the tree is refused, the client SDK takes permissive licences
// only, and the real tree passes with docs/licensing.md up to date.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/env.js';
import { repoPath, ROOT } from '../helpers/root.js';

// A plain ES module script without type declarations, imported by its place in the repository so
// that the compiled copy of this file (dist/test/) finds it too.
const { disallowed, licenceAllowed, productionTree } = await import(pathToFileURL(repoPath('scripts', 'licences.mjs')).href);

const PERMISSIVE = new Set(['MIT', 'ISC', 'Apache-2.0', 'BSD-3-Clause']);

test('SPDX expressions: OR needs one allowed side, AND needs both, WITH follows its licence', () => {
  const cases: Array<[string, boolean]> = [
    ['MIT', true],
    ['GPL-3.0', false],
    ['(MIT OR GPL-3.0)', true],
    ['GPL-2.0 OR LGPL-3.0', false],
    ['MIT AND ISC', true],
    ['MIT AND GPL-2.0', false],
    ['(BSD-3-Clause OR GPL-2.0) AND Apache-2.0', true],
    ['Apache-2.0 WITH LLVM-exception', true],
    ['GPL-2.0 WITH Classpath-exception-2.0', false],
    ['UNKNOWN', false],
    ['(MIT', false],
    ['MIT OR', false],
    ['', false],
  ];
  for (const [expr, ok] of cases) assert.equal(licenceAllowed(expr, PERMISSIVE), ok, expr);
});

test('a copyleft package is refused unless an exception names it with the same licence', () => {
  const pkgs = [
    { name: 'fine', version: '1.0.0', licence: 'MIT', requiredBy: new Set(['x']) },
    { name: 'gpl-thing', version: '1.0.0', licence: 'GPL-3.0', requiredBy: new Set(['x']) },
  ];
  assert.deepEqual(
    disallowed(pkgs, [...PERMISSIVE]).map((p: { name: string }) => p.name),
    ['gpl-thing'],
  );
  assert.deepEqual(disallowed(pkgs, [...PERMISSIVE], { 'gpl-thing': { licence: 'GPL-3.0', why: 'test' } }), []);
  // The exception is for one licence: a relicensed package is looked at again.
  assert.deepEqual(disallowed(pkgs, [...PERMISSIVE], { 'gpl-thing': { licence: 'GPL-2.0', why: 'test' } }).length, 1);
});

test('the walk follows production dependencies only, nested copies included, and skips absent optional ones', () => {
  const tmp = tempDir('parla-licences-');
  try {
    const pkg = (dir: string, json: object) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify(json));
    };
    pkg(tmp.dir, { name: 'app', dependencies: { a: '1' }, devDependencies: { dev: '1' } });
    pkg(path.join(tmp.dir, 'node_modules', 'a'), {
      name: 'a',
      version: '1.0.0',
      license: 'MIT',
      dependencies: { b: '2' },
      optionalDependencies: { gone: '1' },
    });
    pkg(path.join(tmp.dir, 'node_modules', 'b'), { name: 'b', version: '1.0.0', license: 'MIT' });
    pkg(path.join(tmp.dir, 'node_modules', 'a', 'node_modules', 'b'), { name: 'b', version: '2.0.0', licenses: [{ type: 'GPL-2.0' }] });
    pkg(path.join(tmp.dir, 'node_modules', 'dev'), { name: 'dev', version: '1.0.0', license: 'GPL-3.0' });
    const { packages, missing } = productionTree(tmp.dir);
    assert.deepEqual(
      packages.map((p: { name: string; version: string; licence: string }) => `${p.name}@${p.version} ${p.licence}`),
      ['a@1.0.0 MIT', 'b@2.0.0 GPL-2.0'],
    );
    assert.deepEqual(missing, []);
  } finally {
    tmp.cleanup();
  }
});

test('the installed tree passes the check and docs/licensing.md is up to date', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts', 'licences.mjs'), '--check'], { cwd: ROOT });
  assert.match(stdout, /every production dependency is allowed/);
});
