// The neural engine slot: SherpaTtsEngine finds Piper/Kokoro model directories, says "model files
// absent" without them (the chain falls through), and really hands files to sherpa-onnx's native
// loader in a worker (which refuses files that are not models, without taking the worker down).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkerPool } from '../../src/workers/pool.js';
import { createWorkerPool } from '../../src/tasks/table.js';
import { ModelRegistry } from '../../src/registry/model-registry.js';
import { SherpaTtsEngine } from '../../src/engines/sherpa/sherpa-tts-engine.js';
import { findSherpaTtsModels } from '../../src/engines/sherpa/models.js';
import { FliteEngine } from '../../src/engines/flite/flite-engine.js';
import { EspeakEngine } from '../../src/engines/espeak/espeak-engine.js';
import { EngineError } from '../../src/engines/engine.js';
import { tempDir, testConfig } from '../helpers/env.js';

function modelDir(root: string, name: string, files: string[]): void {
  const dir = path.join(root, 'tts', name);
  mkdirSync(path.join(dir, 'espeak-ng-data'), { recursive: true });
  for (const f of files) writeFileSync(path.join(dir, f), f === 'tokens.txt' ? '_ 0\na 1\n' : 'not a model');
  for (const f of ['phontab', 'phonindex', 'phondata', 'intonations']) writeFileSync(path.join(dir, 'espeak-ng-data', f), '');
}

describe('SherpaTtsEngine', () => {
  let pool: WorkerPool;
  const dirs: Array<{ cleanup(): void }> = [];
  before(() => {
    pool = createWorkerPool({ threads: 1, maxQueue: 4 });
  });
  after(async () => {
    await pool.close();
    for (const d of dirs) d.cleanup();
  });

  test('without model files it is unavailable ("model files absent") and the chain falls through', () => {
    const empty = tempDir();
    dirs.push(empty);
    const sherpa = new SherpaTtsEngine(pool, empty.dir);
    assert.equal(sherpa.status().available, false);
    assert.match(sherpa.status().reason ?? '', /^model files absent/);
    assert.deepEqual(sherpa.languages(), []);
    const base = testConfig();
    const config = {
      ...base,
      product: { ...base.product, ttsBindings: { ...base.product.ttsBindings, neural: ['sherpa', 'flite', 'espeak'] } },
    };
    const reg = new ModelRegistry(config, { tts: [sherpa, new FliteEngine(pool), new EspeakEngine(pool)] });
    assert.equal(reg.resolveTtsEngine('neural', 'en-US')?.id, 'flite');
    assert.equal(reg.resolveTtsEngine('neural', 'de-DE')?.id, 'espeak');
    // Only the shipped chains' engines this test does not register.
    assert.deepEqual(reg.unknownTtsBindings(), ['flite-lite', 'studio-festival', 'studio-flite', 'studio-espeak']);
  });

  test('finds Piper and Kokoro directories as their archives unpack; incomplete ones are ignored', () => {
    const root = tempDir();
    dirs.push(root);
    modelDir(root.dir, 'vits-piper-de_DE-thorsten-low', ['de_DE-thorsten-low.onnx', 'tokens.txt']);
    modelDir(root.dir, 'kokoro-en-v0_19', ['model.onnx', 'voices.bin', 'tokens.txt', 'lexicon-us-en.txt']);
    modelDir(root.dir, 'no-tokens', ['en_US-amy-low.onnx']);
    const models = findSherpaTtsModels(root.dir);
    assert.deepEqual(
      models.map((m) => [m.name, m.kind, m.languages]),
      [
        ['kokoro-en-v0_19', 'kokoro', ['en-US', 'en-GB']],
        ['vits-piper-de_DE-thorsten-low', 'piper', ['de-DE']],
      ],
    );
    assert.match(models[0]!.lexicon ?? '', /lexicon-us-en\.txt$/);
  });

  test('model files are loaded by sherpa-onnx in a worker: a broken file is a clear engine error', async () => {
    const root = tempDir();
    dirs.push(root);
    modelDir(root.dir, 'vits-piper-de_DE-thorsten-low', ['de_DE-thorsten-low.onnx', 'tokens.txt']);
    const sherpa = new SherpaTtsEngine(pool, root.dir);
    assert.deepEqual(sherpa.status(), { available: true });
    assert.deepEqual(sherpa.languages(), ['de-DE']);
    await assert.rejects(
      sherpa.synthesize({
        text: 'Hallo.',
        engineVoice: 'vits-piper-de_DE-thorsten-low',
        language: 'de-DE',
        speed: 1,
        pitch: 0,
        style: 'normal',
      }),
      (e: unknown) => e instanceof EngineError && /Protobuf parsing failed|Load model/.test(e.message),
    );
    await assert.rejects(
      sherpa.synthesize({ text: 'Hi.', engineVoice: '', language: 'fr-FR', speed: 1, pitch: 0, style: 'normal' }),
      /no model serves fr-FR/,
    );
    assert.deepEqual(await pool.run('pool.echo', { value: 7 }), { value: 7 }, 'the worker survived');
  });
});
