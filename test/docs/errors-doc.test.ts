import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERRORS } from '../../src/errors.js';

test('docs/errors.md documents every code of src/errors.ts with its status', () => {
  const doc = readFileSync('docs/errors.md', 'utf8');
  for (const [code, e] of Object.entries(ERRORS)) {
    assert.ok(
      doc.includes(`| \`${code}\` | ${e.status} | ${e.category} |`),
      `${code} missing or stale: run node --import tsx scripts/gen-errors-doc.ts`,
    );
  }
});
