// Which way the node's Flite engines run (decision #88): the addon by default, the program with
// PARLA_FLITE_NATIVE=0; with the addon, both Flite engines share one cap of PARLA_WORKERS threads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkerPool } from '../../src/workers/pool.js';
import { createWorkerPool } from '../../src/tasks/table.js';
import { createTtsEngines } from '../../src/engines/create.js';
import { FliteEngine } from '../../src/engines/flite/flite-engine.js';
import type { TtsEngine } from '../../src/engines/engine.js';
import { testConfig } from '../helpers/env.js';

let pool: WorkerPool;
before(() => {
  pool = createWorkerPool({ threads: 2, maxQueue: 16 });
});
after(async () => {
  await pool.close();
});

const flites = (engines: TtsEngine[]) => engines.filter((e): e is FliteEngine => e instanceof FliteEngine);

test('the node runs Flite through the addon unless PARLA_FLITE_NATIVE=0', () => {
  const native = flites(createTtsEngines(testConfig({ PARLA_WORKERS: '2' }), pool));
  assert.deepEqual(
    native.map((e) => [e.id, e.runs]),
    [
      ['flite', 'native'],
      ['flite-lite', 'native'],
    ],
  );
  const engines = createTtsEngines(testConfig({ PARLA_FLITE_NATIVE: '0' }), pool);
  const program = flites(engines);
  assert.deepEqual(
    program.map((e) => e.runs),
    ['program', 'program'],
  );
  for (const e of engines) e.close?.();
});

test("the two Flite engines share the addon's thread cap (PARLA_WORKERS)", async () => {
  const [flite, lite] = flites(createTtsEngines(testConfig({ PARLA_WORKERS: '1' }), pool));
  const req = { language: 'en-US', speed: 1, pitch: 0, style: 'normal' as const };
  let peak = 0;
  let apart = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, flite!.processesRunning);
    if (flite!.processesRunning !== lite!.processesRunning) apart++;
  }, 1);
  const results = await Promise.all([
    flite!.synthesize({ ...req, text: 'One sentence for the first engine to say.', engineVoice: 'slt' }),
    lite!.synthesize({ ...req, text: 'And another one for the second.', engineVoice: 'kal16' }),
  ]);
  clearInterval(timer);
  assert.ok(results.every((r) => r.samples.length > 0));
  // Both engines count the same slots: one thread between them, never two at once.
  assert.equal(peak, 1);
  assert.equal(apart, 0);
});
