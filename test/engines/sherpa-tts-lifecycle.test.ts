// sherpa-onnx voices under the model lifecycle, on a generated random-weight Piper voice: loaded on
// first use in a thread of their own, shared by concurrent syntheses, unloaded after the idle TTL
// and loaded again; a file that is no model fails the load as an engine error without harm.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createWorkerPool } from '../../src/tasks/table.js';
import { EngineError } from '../../src/engines/engine.js';
import { EngineOverloadedError } from '../../src/domain/overload.js';
import { ModelLifecycle } from '../../src/engines/model-lifecycle.js';
import { SherpaTtsEngine } from '../../src/engines/sherpa/sherpa-tts-engine.js';
import { tempDir, UNLOAD_WAIT_MS } from '../helpers/env.js';
import { generateSherpaModels } from '../helpers/sherpa-models.js';

const tmp = tempDir('parla-sherpa-tts-');
const modelsDir = path.join(tmp.dir, 'models');
const pool = createWorkerPool({ threads: 1, maxQueue: 4 });
const lc = new ModelLifecycle({ ttlMs: 300, memoryBudgetMB: 100_000, loadWaitMs: 30_000 });

before(() => {
  const g = generateSherpaModels(path.join(tmp.dir, 'gen'));
  const voice = path.join(modelsDir, 'tts', 'piper-gen');
  mkdirSync(path.dirname(voice), { recursive: true });
  cpSync(g.piper, voice, { recursive: true });
  writeFileSync(path.join(voice, 'languages.txt'), 'en-US\n');
  const broken = path.join(modelsDir, 'tts', 'broken-gen');
  cpSync(g.piper, broken, { recursive: true });
  writeFileSync(path.join(broken, 'model.onnx'), 'not a model');
  writeFileSync(path.join(broken, 'languages.txt'), 'de-DE\n');
});
after(async () => {
  await lc.close();
  await pool.close();
  tmp.cleanup();
});

const req = (text: string, language = 'en-US', engineVoice = 'piper-gen') => ({
  text,
  engineVoice,
  language,
  speed: 1,
  pitch: 0,
  style: 'normal' as const,
});

test('a voice loads on first use, is shared, unloads after the idle TTL and loads again', async () => {
  const engine = new SherpaTtsEngine(pool, modelsDir, lc, 4);
  assert.deepEqual(lc.resident(), []);
  const [a, b] = await Promise.all([engine.synthesize(req('Hello there.')), engine.synthesize(req('Hello there.'))]);
  assert.ok(a.samples.length > 0);
  assert.equal(a.sampleRate, b.sampleRate);
  assert.equal(a.samples.length, b.samples.length, 'the same voice, the same length (VITS adds noise to the rest)');
  assert.equal(lc.loadCount('tts:piper-gen'), 1);
  const deadline = Date.now() + UNLOAD_WAIT_MS;
  while (lc.resident().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(lc.resident(), []);
  const again = await engine.synthesize(req('Hello there.'));
  assert.equal(again.samples.length, a.samples.length);
  assert.equal(lc.loadCount('tts:piper-gen'), 2);
  // Nothing went through the worker pool.
  assert.equal(pool.stats().completed, 0);

  await assert.rejects(
    engine.synthesize(req('Hallo.', 'de-DE', 'broken-gen')),
    (e: unknown) => e instanceof EngineError && /broken-gen/.test(e.message),
  );
  assert.ok((await engine.synthesize(req('Still here.'))).samples.length > 0, 'the other voice still serves');
});

test("past the voice's bound of syntheses in flight, a new one is overload (503 at the edge), not an engine failure", async () => {
  const own = new ModelLifecycle({ ttlMs: 60_000, memoryBudgetMB: 100_000, loadWaitMs: 30_000 });
  const engine = new SherpaTtsEngine(pool, modelsDir, own, 1);
  const results = await Promise.allSettled([
    engine.synthesize(req('One sentence to say.')),
    engine.synthesize(req('Another sentence to say.')),
  ]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.ok(refused.reason instanceof EngineOverloadedError, String(refused.reason));
  await own.close();
});
