// sherpa-onnx speech recognition through SttEngine, on generated random-weight models of every
// recognition format the model manager verifies (Whisper, NeMo CTC, streaming Zipformer2 CTC and
// Zipformer transducer), installed and verified as `parla models verify` does. Their words are
// noise by design: the tests check what the engine makes of them (shapes, timelines, engine id,
// detected language, pieces at pauses, partials) and the model lifecycle on real loads (threads,
// idle unload, eviction under a memory budget, waiters during a load).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { EngineOverloadedError } from '../../src/domain/overload.js';
import { EngineError, type RecognizedUtterance, type RecognitionResult } from '../../src/engines/engine.js';
import { ModelLifecycle } from '../../src/engines/model-lifecycle.js';
import { createSherpaSttEngines, SherpaSttEngine, type SherpaSttOptions } from '../../src/engines/sherpa/sherpa-stt-engine.js';
import { verifiedModels } from '../../src/models/store.js';
import { tempDir, UNLOAD_WAIT_MS } from '../helpers/env.js';
import { generateSherpaModels, installVerifiedSttModels } from '../helpers/sherpa-models.js';
import { flite, soxConcat } from '../helpers/speech.js';

const RATE = 16000;
const tmp = tempDir('parla-sherpa-stt-');
const modelsDir = path.join(tmp.dir, 'models');
const NAMES = ['whisper-gen', 'nemo-ctc-gen', 'zipformer2-ctc-gen', 'zipformer-transducer-gen'] as const;
let speech: Int16Array;
let twoSentences: Int16Array;
const lifecycles: ModelLifecycle[] = [];

function readWav(file: string): Int16Array {
  const w = decodeWav(readFileSync(file));
  assert.equal(w.sampleRate, RATE);
  return float32ToInt16(w.channels[0]!);
}

function engines(opts: { ttlMs?: number; memoryBudgetMB?: number; loadWaitMs?: number } & Partial<SherpaSttOptions> = {}) {
  const lc = new ModelLifecycle({
    ttlMs: opts.ttlMs ?? 60_000,
    memoryBudgetMB: opts.memoryBudgetMB ?? 100_000,
    loadWaitMs: opts.loadWaitMs ?? 30_000,
  });
  lifecycles.push(lc);
  const list = createSherpaSttEngines(modelsDir, lc, { maxPending: 16, ...opts });
  const byName = (name: (typeof NAMES)[number]) => list.find((e) => e.model.name === name)!;
  return { lc, list, byName };
}

/** Words in order, each starting no earlier than the previous one ended, inside the audio. */
function assertTimeline(utterances: RecognizedUtterance[], duration: number) {
  let last = 0;
  for (const u of utterances) {
    assert.ok(u.words.length > 0);
    assert.equal(u.start, u.words[0]!.start);
    assert.equal(u.end, u.words[u.words.length - 1]!.end);
    for (const w of u.words) {
      assert.equal(typeof w.word, 'string');
      assert.ok(w.word.length > 0 && !/\s/.test(w.word), JSON.stringify(w.word));
      assert.ok(w.start >= last - 1e-9, `${w.start} after ${last}`);
      assert.ok(w.end >= w.start, JSON.stringify(w));
      assert.ok(w.end <= duration + 1e-9, `${w.end} within ${duration}`);
      last = w.end;
    }
  }
}

const words = (r: RecognitionResult) => r.utterances.flatMap((u) => u.words);

before(async () => {
  const g = generateSherpaModels(path.join(tmp.dir, 'generated'));
  await installVerifiedSttModels(modelsDir, [
    // Languages from its metadata (a multilingual Whisper: en, de).
    { name: 'whisper-gen', from: g.whisper },
    { name: 'nemo-ctc-gen', from: g.nemoCtc, languages: ['en'] },
    { name: 'zipformer2-ctc-gen', from: g.zipformerCtc, languages: ['en'] },
    { name: 'zipformer-transducer-gen', from: g.zipformerTransducer, languages: ['en'] },
  ]);
  speech = readWav(flite('The quick brown fox jumps over the lazy dog.'));
  twoSentences = readWav(soxConcat([flite('Good morning to you.'), flite('See you again tomorrow.')], 1.2));
});
after(async () => {
  await Promise.all(lifecycles.map((l) => l.close()));
  tmp.cleanup();
});

describe('sherpa-onnx speech recognition', () => {
  test('one engine per verified model, named sherpa:<model>, with the languages it serves', () => {
    const { list } = engines();
    assert.deepEqual(list.map((e) => e.id).sort(), NAMES.map((n) => `sherpa:${n}`).sort());
    for (const e of list) assert.deepEqual(e.status(), { available: true });
    assert.deepEqual(
      list
        .find((e) => e.id === 'sherpa:whisper-gen')!
        .languages()
        .sort(),
      ['de', 'en'],
    );
    assert.deepEqual(list.find((e) => e.id === 'sherpa:nemo-ctc-gen')!.languages(), ['en']);
    assert.equal(list.find((e) => e.id === 'sherpa:zipformer2-ctc-gen')!.streaming, true);
    assert.equal(list.find((e) => e.id === 'sherpa:whisper-gen')!.streaming, false);
  });

  test('a model without stated languages is reported, not served', () => {
    const lc = new ModelLifecycle({ ttlMs: 1000, memoryBudgetMB: 1000, loadWaitMs: 1000 });
    const record = verifiedModels(modelsDir).find((m) => m.name === 'nemo-ctc-gen')!;
    const e = new SherpaSttEngine({ ...record, languages: [] }, lc, { maxPending: 4 });
    assert.equal(e.status().available, false);
    assert.match(e.status().reason!, /languages\.txt/);
    assert.deepEqual(e.languages(), []);
    assert.equal(lc.has('nemo-ctc-gen'), false);
  });

  for (const name of NAMES) {
    test(`${name}: batch recognition gives timed words on the audio's timeline`, async () => {
      const { byName, lc } = engines();
      const r = await byName(name).recognize(speech, { language: 'en', profile: 'default' });
      assert.equal(r.engine, `sherpa:${name}`);
      assert.equal(r.duration, speech.length / RATE);
      assert.ok(r.utterances.length >= 1, JSON.stringify(r));
      assertTimeline(r.utterances, r.duration);
      assert.equal(r.language, undefined);
      assert.equal(lc.loadCount(name), 1);
    });
  }

  test('CTC and transducer words take their times from the tokens; Whisper spreads them over the speech', async () => {
    const { byName } = engines();
    const ctc = await byName('nemo-ctc-gen').recognize(speech, { language: 'en', profile: 'default' });
    // Token times are multiples of the 40 ms output frame from the piece's start.
    const ctcWords = words(ctc);
    assert.ok(ctcWords.length > 1);
    const whisper = await byName('whisper-gen').recognize(speech, { language: 'en', profile: 'default' });
    const ww = words(whisper);
    // Spread: each word starts where the previous ended, the last ends where the piece ends.
    for (let i = 1; i < ww.length; i++) assert.equal(ww[i]!.start, ww[i - 1]!.end);
    assert.ok(ww[ww.length - 1]!.end > ww[0]!.start);
  });

  test('a multilingual Whisper detects the language when asked and reports it; a given language must be served', async () => {
    const { byName } = engines();
    const e = byName('whisper-gen');
    const detected = await e.recognize(speech, { language: 'en', profile: 'default', detectLanguage: true });
    assert.ok(['en', 'de'].includes(detected.language!), String(detected.language));
    const german = await e.recognize(speech, { language: 'de', profile: 'default' });
    assert.equal(german.language, undefined);
    assert.ok(german.utterances.length >= 1);
    await assert.rejects(
      e.recognize(speech, { language: 'fr', profile: 'default' }),
      (err: unknown) => err instanceof EngineError && /not served/.test(err.message),
    );
    // Models that cannot detect ignore the request to.
    const ctc = await byName('nemo-ctc-gen').recognize(speech, { language: 'en', profile: 'default', detectLanguage: true });
    assert.equal(ctc.language, undefined);
  });

  test('recordings are cut at pauses and into pieces no longer than the limit; silence decodes to nothing', async () => {
    const { byName } = engines();
    const two = await byName('nemo-ctc-gen').recognize(twoSentences, { language: 'en', profile: 'default' });
    assert.equal(two.utterances.length, 2, JSON.stringify(two.utterances.map((u) => [u.start, u.end])));
    assert.ok(two.utterances[1]!.start - two.utterances[0]!.end > 0.5, 'the pause lies between the utterances');
    assertTimeline(two.utterances, two.duration);

    const { byName: short } = engines({ maxPieceSeconds: 1 });
    const pieces = await short('zipformer-transducer-gen').recognize(speech, { language: 'en', profile: 'default' });
    assert.ok(pieces.utterances.length >= Math.floor(speech.length / RATE / 1.2), `${pieces.utterances.length} pieces`);
    for (const u of pieces.utterances) assert.ok(u.end - u.start <= 1.001, JSON.stringify([u.start, u.end]));
    assertTimeline(pieces.utterances, pieces.duration);

    const silence = await byName('whisper-gen').recognize(new Int16Array(RATE * 2), { language: 'en', profile: 'default' });
    assert.deepEqual(silence.utterances, []);
    assert.deepEqual(await byName('nemo-ctc-gen').recognize(new Int16Array(0), { language: 'en', profile: 'default' }), {
      engine: 'sherpa:nemo-ctc-gen',
      duration: 0,
      utterances: [],
    });
  });

  test('bad input is refused before it reaches the model', async () => {
    const { byName } = engines();
    await assert.rejects(
      byName('nemo-ctc-gen').recognize(new Float32Array(10) as never, { language: 'en', profile: 'default' }),
      TypeError,
    );
    await assert.rejects(byName('nemo-ctc-gen').recognize(speech, null as never), TypeError);
  });
});

/** Feeds pcm in 100 ms chunks, asking for an interim result after each. */
async function feed(stream: Awaited<ReturnType<SherpaSttEngine['openStream']>>, pcm: Int16Array) {
  const partials: Array<RecognizedUtterance | null> = [];
  for (let i = 0; i < pcm.length; i += 1600) {
    await stream.write(pcm.subarray(i, i + 1600));
    partials.push(await stream.partial());
  }
  return partials;
}

describe('sherpa-onnx streams', () => {
  for (const name of ['zipformer2-ctc-gen', 'zipformer-transducer-gen'] as const) {
    test(`${name}: true partial results that grow while audio arrives, then the final utterance`, async () => {
      const { byName } = engines();
      const stream = await byName(name).openStream({ language: 'en', profile: 'default' });
      const partials = (await feed(stream, speech)).filter((p): p is RecognizedUtterance => p !== null);
      assert.ok(partials.length > 5, `${partials.length} partials`);
      const ends = partials.map((p) => p.end);
      for (let i = 1; i < ends.length; i++) assert.ok(ends[i]! >= ends[i - 1]!, `partial ends grow: ${ends.join(',')}`);
      assert.ok(ends[0]! < ends[ends.length - 1]!);
      const final = await stream.finalizeUtterance();
      assert.ok(final && final.words.length > 0);
      assertTimeline([final], speech.length / RATE);
      assert.equal(await stream.partial(), null, 'a new utterance has nothing yet');
      // The next utterance is on the same timeline, after the first.
      await feed(stream, speech);
      const second = await stream.finalizeUtterance();
      assert.ok(second && second.start >= speech.length / RATE - 0.5, JSON.stringify(second?.start));
      assertTimeline([final, second], (2 * speech.length) / RATE);
      await stream.close();
      await stream.close();
      await assert.rejects(stream.write(speech), /stream closed/);
    });
  }

  for (const name of ['whisper-gen', 'nemo-ctc-gen'] as const) {
    test(`${name} (offline) in real time: interim results re-decode the utterance at most every 0.6 s of audio`, async () => {
      const { byName } = engines({ partialEverySeconds: 0.6, partialWindowSeconds: 1.5 });
      const stream = await byName(name).openStream({ language: 'en', profile: 'default' });
      const partials = await feed(stream, speech);
      const got = partials.filter((p): p is RecognizedUtterance => p !== null);
      assert.ok(got.length > 3);
      // Between re-decodes the previous interim is repeated unchanged.
      const distinct = new Set(partials.map((p) => JSON.stringify(p)));
      assert.ok(distinct.size <= Math.ceil(speech.length / RATE / 0.6) + 2, `${distinct.size} distinct interim results`);
      for (const p of got) assertTimeline([p], speech.length / RATE);
      const final = await stream.finalizeUtterance();
      assert.ok(final && final.words.length > 0);
      assertTimeline([final], speech.length / RATE);
      assert.equal(await stream.finalizeUtterance(), null, 'nothing after the final result');
      await stream.close();
    });
  }

  test('an utterance longer than the piece limit is decoded in pieces as it grows, and returned whole', async () => {
    const { byName } = engines({ maxPieceSeconds: 1 });
    const stream = await byName('nemo-ctc-gen').openStream({ language: 'en', profile: 'default' });
    await feed(stream, speech);
    const final = await stream.finalizeUtterance();
    assert.ok(final);
    assertTimeline([final], speech.length / RATE);
    assert.ok(final.end > 2, 'words from the whole utterance');
    await stream.close();
  });
});

describe('model lifecycle with sherpa-onnx models', () => {
  test('requests arriving while the model loads wait for that one load and share it', async () => {
    const { byName, lc } = engines();
    const e = byName('zipformer2-ctc-gen');
    const results = await Promise.all([1, 2, 3].map(() => e.recognize(speech, { language: 'en', profile: 'default' })));
    assert.equal(lc.loadCount('zipformer2-ctc-gen'), 1);
    for (const r of results) assert.deepEqual(r.utterances, results[0]!.utterances);
  });

  test('idle past the TTL the model unloads (its thread ends); the next request loads it again', async () => {
    const { byName, lc } = engines({ ttlMs: 300 });
    const e = byName('nemo-ctc-gen');
    const first = await e.recognize(speech, { language: 'en', profile: 'default' });
    assert.deepEqual(
      lc.resident().map((r) => [r.name, r.state]),
      [['nemo-ctc-gen', 'loaded']],
    );
    const stream = await e.openStream({ language: 'en', profile: 'default' });
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(lc.resident().length, 1, 'an open stream keeps its model');
    await stream.close();
    const deadline = Date.now() + UNLOAD_WAIT_MS;
    while (lc.resident().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(lc.resident(), []);
    const again = await e.recognize(speech, { language: 'en', profile: 'default' });
    assert.equal(lc.loadCount('nemo-ctc-gen'), 2);
    assert.deepEqual(again.utterances, first.utterances, 'the reloaded model says the same');
  });

  test('work waiting on one model is bounded: past the limit a new request is refused at once, streams keep going', async () => {
    const { byName, lc } = engines({ maxPending: 1 });
    await lc.preload(['nemo-ctc-gen']);
    const e = byName('nemo-ctc-gen');
    const first = e.recognize(speech, { language: 'en', profile: 'default' });
    await assert.rejects(
      e.recognize(speech, { language: 'en', profile: 'default' }),
      (err: unknown) => err instanceof EngineOverloadedError,
    );
    assert.ok((await first).utterances.length > 0);
    const stream = await e.openStream({ language: 'en', profile: 'default' });
    await Promise.all([stream.write(speech.subarray(0, 8000)), stream.write(speech.subarray(8000, 16000)), stream.partial()]);
    assert.ok(await stream.finalizeUtterance());
    await stream.close();
  });

  test('a model whose thread ends on its own is dropped and loads again on next use', async () => {
    const { byName, lc } = engines();
    const e = byName('zipformer-transducer-gen');
    await e.recognize(speech, { language: 'en', profile: 'default' });
    const lease = await lc.acquire<{ stop(): Promise<void> }>('zipformer-transducer-gen');
    lease.release();
    await lease.model.stop(); // as if the thread had died
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(lc.resident(), []);
    const r = await e.recognize(speech, { language: 'en', profile: 'default' });
    assert.ok(r.utterances.length > 0);
    assert.equal(lc.loadCount('zipformer-transducer-gen'), 2);
  });

  test('under a memory budget for one model, using another evicts the least recently used', async () => {
    const { byName, lc } = engines({ memoryBudgetMB: 1 });
    await byName('nemo-ctc-gen').recognize(speech, { language: 'en', profile: 'default' });
    await byName('zipformer2-ctc-gen').recognize(speech, { language: 'en', profile: 'default' });
    assert.deepEqual(
      lc.resident().map((r) => r.name),
      ['zipformer2-ctc-gen'],
    );
    // A stream holds its model: the other waits (bounded) rather than evict it.
    const { byName: byName2 } = engines({ memoryBudgetMB: 1, loadWaitMs: 1500 });
    const stream = await byName2('whisper-gen').openStream({ language: 'en', profile: 'default' });
    await assert.rejects(
      byName2('nemo-ctc-gen').recognize(speech, { language: 'en', profile: 'default' }),
      (err: unknown) => err instanceof EngineOverloadedError,
    );
    await stream.close();
    const r = await byName2('nemo-ctc-gen').recognize(speech, { language: 'en', profile: 'default' });
    assert.equal(r.engine, 'sherpa:nemo-ctc-gen');
  });
});
