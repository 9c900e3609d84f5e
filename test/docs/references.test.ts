// The repository carries every document its code cites: each "decisions #N" in src/, test/,
// scripts/ and docs/ is a numbered entry of docs/decisions.md, nothing cites the spec files that
// live outside the repository, and docs/interface.md lists every public error code with its status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ERRORS } from '../../src/errors.js';
import { ROOT } from '../helpers/root.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx|mjs|md)$/.test(name) ? [p] : [];
  });
}

const sources = ['src', 'test', 'scripts', 'docs', 'bench']
  .flatMap((d) => files(path.join(ROOT, d)))
  .filter((f) => !f.endsWith(path.join('test', 'docs', 'references.test.ts')));

test('every "decisions #N" cited is an entry of docs/decisions.md', () => {
  const decisions = readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8');
  const entries = new Set([...decisions.matchAll(/^(\d+)\. \*\*/gm)].map((m) => Number(m[1])));
  assert.ok(entries.size >= 34, `${entries.size} entries`);
  const missing: string[] = [];
  let cited = 0;
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    // "decisions #2", "decisions #12, #13", "decisions.md #25"
    for (const m of text.matchAll(/decisions(?:\.md)? (#\d+(?:, #\d+)*)/g)) {
      for (const n of m[1]!.split(', ').map((x) => Number(x.slice(1)))) {
        cited++;
        if (!entries.has(n)) missing.push(`${path.relative(ROOT, file)}: #${n}`);
      }
    }
  }
  assert.ok(cited > 40, `only ${cited} citations found`);
  assert.deepEqual(missing, []);
});

test('nothing cites the interface documents outside the repository', () => {
  const outside: string[] = [];
  for (const file of sources) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/\.\.\/shared|\/work\/shared/.test(line) || /(?<!docs\/)\b(interface|decisions)\.md/.test(line))
        outside.push(`${path.relative(ROOT, file)}:${i + 1}`);
    });
  }
  assert.deepEqual(outside, []);
});

test('docs/interface.md names every error code, in the row of its status', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/interface.md'), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| (\d{3}) \| (.*) \|$/gm)].map((m) => [Number(m[1]), m[2]!]));
  const dashboardOnly = new Set(['SIGN_IN_FAILED', 'SESSION_REQUIRED', 'CSRF_FAILED', 'KEY_NOT_FOUND']);
  const wrong = Object.entries(ERRORS)
    .filter(([code]) => !dashboardOnly.has(code))
    .filter(([code, e]) => !(rows.get(e.status) ?? '').includes(`\`${code}\``))
    .map(([code, e]) => `${code} (${e.status})`);
  assert.deepEqual(wrong, []);
});
