// Writes ONNX models of Smart Turn v3's interface with test/fixtures/smart-turn/gen_smart_turn.py
// (Debian's python3-onnx): random-free weights whose completion probability is a known function of
// the features (loud full windows near 1, a short clip in padding near 0), and two malformed ones.

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { testPython } from './sherpa-models.js';
import { repoPath } from './root.js';

const GENERATOR = repoPath('test', 'fixtures', 'smart-turn', 'gen_smart_turn.py');

export function generateSmartTurnModel(dir: string, variant: 'ok' | 'bad-input' | 'bad-output' = 'ok'): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `smart-turn-${variant}.onnx`);
  execFileSync(testPython(), [GENERATOR, file, variant], { stdio: 'ignore' });
  return file;
}
