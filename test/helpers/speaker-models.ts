// Writes random-weight speaker models of the two formats sherpa-onnx's diarization reads, with
// test/fixtures/sherpa-models/gen_speaker.py (Debian's python3-onnx): a pyannote segmentation 3.0
// model, a 3D-Speaker and a WeSpeaker embedding model, and two whose metadata lacks a key sherpa-onnx
// requires. They load and run; which speaker they find is arbitrary by design.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { testPython } from './sherpa-models.js';
import { repoPath } from './root.js';

const GENERATORS = repoPath('test', 'fixtures', 'sherpa-models');

export interface SpeakerModelFiles {
  segmentation: string;
  embedding3d: string;
  wespeaker: string;
  segmentationNoMeta: string;
  embeddingNoMeta: string;
}

/** The models' .onnx files under `outDir` (each as an operator downloads it: one file). */
export function generateSpeakerModels(outDir: string): SpeakerModelFiles {
  const py = testPython();
  const run = (dir: string, ...args: string[]) =>
    execFileSync(py, [path.join(GENERATORS, 'gen_speaker.py'), path.join(outDir, dir), ...args], { cwd: GENERATORS, stdio: 'ignore' });
  run('seg', 'segmentation');
  run('emb', '3d-speaker');
  run('wes', 'wespeaker');
  run('seg-bad', 'segmentation', 'no-meta');
  run('emb-bad', '3d-speaker', 'no-meta');
  return {
    segmentation: path.join(outDir, 'seg', 'model.onnx'),
    embedding3d: path.join(outDir, 'emb', '3dspeaker_test_16k.onnx'),
    wespeaker: path.join(outDir, 'wes', 'wespeaker_test_16k.onnx'),
    segmentationNoMeta: path.join(outDir, 'seg-bad', 'model.onnx'),
    embeddingNoMeta: path.join(outDir, 'emb-bad', '3dspeaker_test_16k.onnx'),
  };
}
