// The repository's root for tests, whether they run from their source (test/...) or from their
// compiled copy (dist/test/..., which scripts/run-tests.mjs runs when the build is current, decision
// #102): the service's own PROJECT_ROOT, which knows both places.
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config.js';

export const ROOT = PROJECT_ROOT;

/** A path inside the repository, from the root: `repoPath('test', 'fixtures', 'x.wav')`. */
export const repoPath = (...parts: string[]) => path.join(ROOT, ...parts);
