// PocketSphinx under the model lifecycle: each settings profile's decoders load on first use, are
// shared, unload (freed, C heap trimmed) after the idle TTL and load again on the next request,
// which then hears the same words. Needs the addon's free() (a build from before it has none: the
// engine then keeps its decoders, and this test fails rather than pass on the old behaviour).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ModelLifecycle } from '../../src/engines/model-lifecycle.js';
import { PocketSphinxEngine } from '../../src/engines/pocketsphinx/pocketsphinx-engine.js';
import { UNLOAD_WAIT_MS } from '../helpers/env.js';

const GOFORWARD = '/usr/share/pocketsphinx/test/data/goforward.raw';
const lc = new ModelLifecycle({ ttlMs: 300, memoryBudgetMB: 100_000, loadWaitMs: 30_000 });
after(() => lc.close());

function readRaw(file: string): Int16Array {
  const b = readFileSync(file);
  return new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}
const text = (r: Awaited<ReturnType<PocketSphinxEngine['recognize']>>) => r.utterances.flatMap((u) => u.words.map((w) => w.word)).join(' ');

test('decoders per profile load on first use, unload after the idle TTL and load again', async () => {
  const engine = new PocketSphinxEngine({ decodersPerProfile: 1, preload: false, lifecycle: lc });
  assert.deepEqual(lc.resident(), [], 'nothing at start without preload');
  const pcm = readRaw(GOFORWARD);
  const [a, b] = await Promise.all([
    engine.recognize(pcm, { language: 'en', profile: 'fast' }),
    engine.recognize(pcm, { language: 'en', profile: 'fast' }),
  ]);
  assert.equal(text(a), 'go forward ten meters');
  assert.equal(text(b), text(a));
  assert.equal(lc.loadCount('pocketsphinx:fast'), 1, 'one load, shared (the second request waited for the decoder)');
  assert.equal(lc.loadCount('pocketsphinx:accurate'), 0, 'the other profile is not loaded');
  assert.deepEqual(
    lc.resident().map((r) => [r.name, r.state, r.sizeMB]),
    [['pocketsphinx:fast', 'loaded', 95]],
  );
  const stream = await engine.openStream({ language: 'en', profile: 'fast' });
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(lc.resident().length, 1, 'an open stream keeps its decoder loaded');
  await stream.write(pcm);
  assert.equal(text({ utterances: [(await stream.finalizeUtterance())!], duration: 0 }), 'go forward ten meters');
  await stream.close();
  const deadline = Date.now() + UNLOAD_WAIT_MS;
  while (lc.resident().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(lc.resident(), [], 'unloaded after the TTL');
  const again = await engine.recognize(pcm, { language: 'en', profile: 'fast' });
  assert.equal(text(again), 'go forward ten meters');
  assert.equal(lc.loadCount('pocketsphinx:fast'), 2);
});

test('a keyword decoder idle for the TTL is freed, and the next keyword request makes a new one that boosts alike', async () => {
  // A lifecycle of its own: a model name is registered once per lifecycle.
  const own = new ModelLifecycle({ ttlMs: 300, memoryBudgetMB: 100_000, loadWaitMs: 30_000 });
  after(() => own.close());
  const engine = new PocketSphinxEngine({ decodersPerProfile: 1, boostDecodersPerProfile: 1, preload: false, lifecycle: own });
  const pcm = readRaw(GOFORWARD);
  const boosted = { language: 'en', profile: 'fast', keywords: ['forward', 'meters'] };
  const first = await engine.recognize(pcm, boosted);
  assert.equal(text(first), 'go forward ten meters');
  assert.equal(engine.boostDecodersResident, 1, 'made on first need');
  // Used again within the TTL: the same decoder (still one).
  await engine.recognize(pcm, boosted);
  assert.equal(engine.boostDecodersResident, 1);
  const deadline = Date.now() + UNLOAD_WAIT_MS;
  while (engine.boostDecodersResident > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(engine.boostDecodersResident, 0, 'freed after the TTL');
  const again = await engine.recognize(pcm, boosted);
  assert.equal(text(again), text(first));
  assert.equal(engine.boostDecodersResident, 1);
  // A stream holding the decoder keeps it, however long it is quiet.
  const stream = await engine.openStream({ ...boosted });
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(engine.boostDecodersResident, 1, 'a decoder in use is never freed');
  await stream.write(pcm);
  assert.equal(text({ utterances: [(await stream.finalizeUtterance())!], duration: 0 }), 'go forward ten meters');
  await stream.close();
});
