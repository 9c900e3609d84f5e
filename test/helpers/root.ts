// The repository's root, for a test running from its source (test/...) or from its compiled copy
// (dist/test/..., which scripts/run-tests.mjs runs when the build is current, decision #102): the
// nearest folder up that holds package.json (dist/ holds none).
import { existsSync } from 'node:fs';
import path from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const ROOT = findRoot(import.meta.dirname);

/** A path inside the repository, from the root: `repoPath('test', 'fixtures', 'x.wav')`. */
export const repoPath = (...parts: string[]) => path.join(ROOT, ...parts);
