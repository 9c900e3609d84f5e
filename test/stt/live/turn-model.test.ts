// An operator-installed turn model (Smart Turn v3's ONNX interface, decision #74): installed and
// checked by the model manager, run on its own thread, and weighing the pauses of the turn layer.
// The model is generated (test/fixtures/smart-turn/gen_smart_turn.py) so its answer is known: near
// 1 for a window full of loud sound, near 0 for a short clip in the zero padding.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../helpers/env.js';
import { generateSmartTurnModel } from '../../helpers/smart-turn-model.js';
import { pullModel, PullError } from '../../../src/models/pull.js';
import { readManifest } from '../../../src/models/store.js';
import { loadSmartTurn } from '../../../src/models/smart-turn.js';
import { activeTurnModel, useTurnModel, type TurnModel } from '../../../src/engines/smart-turn/turn-model.js';
import { TURN_DEFAULTS, TurnLayer, type TurnEvent } from '../../../src/stt/live/turns.js';

const tmp = tempDir('parla-turn-model-');
after(() => tmp.cleanup());
const models = path.join(tmp.dir, 'models');
const gen = path.join(tmp.dir, 'gen');

const FRAME = 0.02;
let seed = 11;
const noise = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;

/** `seconds` of a loud voiced tone with breath noise (16 kHz, -1..1). */
function loud(seconds: number): Float32Array {
  const a = new Float32Array(Math.round(seconds * 16000));
  for (let i = 0; i < a.length; i++)
    a[i] = 0.25 * Math.sin((2 * Math.PI * 150 * i) / 16000) + 0.1 * Math.sin((2 * Math.PI * 300 * i) / 16000) + 0.3 * noise();
  return a;
}

test('the manager installs a Smart Turn .onnx as a turn model and checks it once', async () => {
  const file = generateSmartTurnModel(gen);
  const rec = await pullModel(models, { source: file, name: 'turn-test', log: () => undefined });
  assert.equal(rec.kind, 'turn');
  assert.equal(rec.format, 'smart-turn');
  assert.equal(rec.status, 'ok');
  assert.deepEqual(rec.files, { model: 'model.onnx' });
  assert.ok(existsSync(path.join(models, 'turn', 'turn-test', 'model.onnx')));
  assert.ok(rec.check && rec.check.loadMs >= 0 && rec.check.runMs >= 0);
  assert.equal(readManifest(models).models['turn-test']?.status, 'ok');
});

test('a model of another interface is refused with the reason, and not installed', async () => {
  await assert.rejects(
    pullModel(models, { source: generateSmartTurnModel(gen, 'bad-input'), name: 'bad-input', log: () => undefined }),
    (e: unknown) => e instanceof PullError && /input is named audio, not input_features/.test((e as Error).message),
  );
  await assert.rejects(
    pullModel(models, { source: generateSmartTurnModel(gen, 'bad-output'), name: 'bad-output', log: () => undefined }),
    (e: unknown) => e instanceof PullError && /\[batch_size, 2\], not \[batch, 1\]/.test((e as Error).message),
  );
  assert.ok(!existsSync(path.join(models, 'turn', 'bad-input')));
  assert.equal(readManifest(models).models['bad-input']?.status, 'failed');
});

test('the thread answers as the model does in-process: near 1 for 8 s of loud sound, near 0 for a short clip', async () => {
  assert.equal(useTurnModel(models, null), null);
  assert.equal(useTurnModel(models, 'no-such-model'), null);
  const m = useTurnModel(models, 'turn-test');
  assert.ok(m);
  assert.equal(activeTurnModel(), m);
  const direct = await loadSmartTurn(path.join(models, 'turn', 'turn-test', 'model.onnx'));
  const full = loud(8.5);
  const short = loud(0.6);
  const [pFull, pShort] = await Promise.all([m.completion(full.slice()), m.completion(short.slice())]);
  assert.ok(pFull > 0.9, `full window: ${pFull}`);
  assert.ok(pShort < 0.2, `short clip: ${pShort}`);
  assert.ok(Math.abs(pFull - (await direct.predict(full))) < 1e-5);
  assert.ok(Math.abs(pShort - (await direct.predict(short))) < 1e-5);
  // Bounded: questions past the limit are refused at once, not queued.
  const many = Array.from({ length: 20 }, () =>
    m.completion(short.slice()).then(
      () => 'ok',
      (e: Error) => e.message,
    ),
  );
  const answers = await Promise.all(many);
  assert.ok(answers.includes('the turn model is busy'), 'some were refused');
  assert.ok(answers.includes('ok'), 'some were answered');
});

/**
 * A turn layer fed `speech` seconds of loud sound then silence (100 ms chunks), the recognizer
 * answering `words`; each model answer is awaited before the next chunk, so the test does not
 * depend on the thread's speed. Returns the pause (ms) at which the turn ended.
 */
async function pauseAtEnd(model: TurnModel | null, speech: number, words: string): Promise<{ pauseMs: number; events: TurnEvent[] }> {
  const events: TurnEvent[] = [];
  const asked: Promise<unknown>[] = [];
  const watched: TurnModel | null = model && {
    name: model.name,
    completion: (audio) => {
      const p = model.completion(audio);
      asked.push(p.catch(() => undefined));
      return p;
    },
  };
  const l = new TurnLayer(
    { ...TURN_DEFAULTS },
    FRAME,
    {
      partial: async () => ({ transcript: words, words: [] }),
      finalize: async () => ({ transcript: words, words: [], start: 0, end: 0 }),
    },
    (e) => events.push(e),
    watched,
  );
  let now = 0;
  const audio = loud(speech);
  for (let at = 0; at < audio.length; at += 1600) {
    const chunk = audio.subarray(at, at + 1600);
    l.audio(Int16Array.from(chunk, (v) => Math.round(v * 32767)));
    now += chunk.length / 16000;
    await l.push(
      Array.from({ length: chunk.length / 320 }, () => true),
      chunk.length / 16000,
      now,
    );
  }
  const speechEnd = now;
  for (let i = 0; i < 40 && !events.some((e) => e.event === 'EndOfTurn'); i++) {
    l.audio(new Int16Array(1600));
    now += 0.1;
    await l.push([false, false, false, false, false], 0.1, now);
    await Promise.all(asked);
    await new Promise((r) => setImmediate(r));
  }
  const end = events.find((e) => e.event === 'EndOfTurn');
  assert.ok(end, 'the turn ended');
  return { pauseMs: Math.round((end.end - speechEnd) * 1000), events };
}

test('without a model the words decide: trailing words wait over a second, finished ones 700 ms', async () => {
  assert.ok((await pauseAtEnd(null, 8.5, 'so I went to the')).pauseMs >= 1000);
  const finished = (await pauseAtEnd(null, 0.6, 'we finished the project')).pauseMs;
  assert.ok(finished >= 600 && finished < 1000, `${finished}`);
});

test('with the model: likely done ends at the short wait although the words trail; unlikely waits longer than the words would', async () => {
  const m = activeTurnModel();
  assert.ok(m);
  const done = await pauseAtEnd(m, 8.5, 'so I went to the');
  assert.ok(done.pauseMs <= 400, `ended after ${done.pauseMs} ms`);
  assert.equal(done.events.at(-1)?.transcript, 'so I went to the');
  const open = await pauseAtEnd(m, 0.6, 'we finished the project');
  assert.ok(open.pauseMs >= 1000, `ended after ${open.pauseMs} ms`);
});

test('a model that fails leaves the pause to the words, as without one', async () => {
  const failing: TurnModel = { name: 'failing', completion: () => Promise.reject(new Error('the turn-model thread exited (1)')) };
  assert.ok((await pauseAtEnd(failing, 8.5, 'so I went to the')).pauseMs >= 1000);
});

test('a file named .onnx that is not ONNX is refused before any runtime loads it', async () => {
  const bogus = path.join(gen, 'bogus.onnx');
  writeFileSync(bogus, 'not a model at all');
  await assert.rejects(
    pullModel(models, { source: bogus, name: 'bogus', log: () => undefined }),
    (e: unknown) => e instanceof PullError && /not an ONNX model/.test((e as Error).message),
  );
});
