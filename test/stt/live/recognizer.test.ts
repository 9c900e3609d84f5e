// A live stream's recognizer alone (src/stt/live/recognizer.ts) on the real PocketSphinx engine with
// one decoder: given back while idle (the decoder serves others), taken again on one continuous
// timeline; and the engine's bounded wait for a decoder (EngineOverloadedError, never a hang).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PocketSphinxEngine } from '../../../src/engines/pocketsphinx/pocketsphinx-engine.js';
import { warmupUtterance } from '../../../src/engines/pocketsphinx/warmup.js';
import { EngineOverloadedError } from '../../../src/domain/overload.js';
import { LiveRecognizer } from '../../../src/stt/live/recognizer.js';
import { decodeWav } from '../../../src/audio/wav.js';
import { float32ToInt16 } from '../../../src/audio/pcm.js';
import { flite, padded } from '../../helpers/speech.js';

const OPTS = { language: 'en', profile: 'fast', keywords: [] };
let engine: PocketSphinxEngine;
let speech: Int16Array;
const pcmOf = (file: string) => float32ToInt16(decodeWav(readFileSync(file)).channels[0]!);

before(async () => {
  engine = new PocketSphinxEngine({
    decodersPerProfile: 1,
    boostDecodersPerProfile: 0,
    profiles: ['fast'],
    warmup: warmupUtterance(),
    decoderWaitMs: 400,
  });
  await engine.whenReady();
  speech = pcmOf(padded(flite('Please bring the quarterly report.'), 0.3, 0.3));
});
after(() => undefined);

test('given back, the decoder serves someone else; taken again, the words land after the audio already received', async () => {
  const r = new LiveRecognizer(await engine.openStream(OPTS), () => engine.openStream(OPTS));
  await r.write(speech, 0);
  const firstU = await r.detach();
  assert.equal(r.attached, false);
  assert.ok(firstU && firstU.words.length > 0);
  assert.ok(firstU.end <= speech.length / 16000 + 0.05);
  // The one decoder is free: another stream gets it at once.
  const other = await engine.openStream(OPTS);
  await other.close();
  const at = speech.length / 16000;
  await r.write(speech, at);
  assert.equal(r.attached, true);
  const second = await r.finalizeUtterance();
  assert.ok(second && second.words.length > 0);
  assert.deepEqual(
    second.words.map((w) => w.word),
    firstU.words.map((w) => w.word),
    'the same audio, the same words',
  );
  for (const [i, w] of second.words.entries()) {
    assert.ok(Math.abs(w.start - (firstU.words[i]!.start + at)) < 0.02, `${w.word} at ${w.start}, ${at} s after ${firstU.words[i]!.start}`);
  }
  assert.ok(second.start >= at && second.end <= 2 * at + 0.05);
  await r.close();
});

test('the engine waits for a busy decoder at most its bound, then EngineOverloadedError with Retry-After', async () => {
  const holder = await engine.openStream(OPTS);
  try {
    const t0 = Date.now();
    await assert.rejects(engine.recognize(speech, OPTS), (err: unknown) => err instanceof EngineOverloadedError && err.retryAfter >= 1);
    const ms = Date.now() - t0;
    assert.ok(ms >= 350 && ms < 5000, `refused after ${ms} ms`);
    // A stream re-taking a recognizer is bounded the same way.
    const r = new LiveRecognizer(null, () => engine.openStream(OPTS));
    await assert.rejects(r.write(speech, 0), EngineOverloadedError);
  } finally {
    await holder.close();
  }
  // Nothing was left waiting in line: the decoder is free for the next caller.
  const res = await engine.recognize(speech, OPTS);
  assert.ok(res.utterances.length > 0);
});

test('a caller that aborts while waiting leaves the line with its own reason, not an overload', async () => {
  const holder = await engine.openStream(OPTS);
  try {
    const c = new AbortController();
    setTimeout(() => c.abort(new Error('client gone')), 50);
    await assert.rejects(engine.recognize(speech, OPTS, c.signal), /client gone/);
  } finally {
    await holder.close();
  }
});

test('keywords asked mid-stream (decision #76): the latest wins, the same list is no change, at most one change per second of audio', async () => {
  const asked: Array<readonly string[]> = [];
  const r = new LiveRecognizer(await engine.openStream(OPTS), async (k) => (asked.push(k), engine.openStream(OPTS)), ['a']);
  assert.equal(r.want(['b']), true, 'the first ask queues its application');
  assert.equal(r.want(['c']), false, 'a later ask before it is applied only replaces the list');
  assert.equal(r.rekey(0), true);
  assert.deepEqual(r.keywords, ['c']);
  r.want(['d']);
  assert.equal(r.rekey(0.5), false, 'within a second of the last change: kept for a later boundary');
  assert.deepEqual(r.keywords, ['c']);
  assert.equal(r.want(['e']), false, 'still pending');
  assert.equal(r.rekey(1.5), true);
  assert.deepEqual(r.keywords, ['e']);
  r.want(['e']);
  assert.equal(r.rekey(5), false, 'the list in effect: nothing to change');
  assert.equal(r.want(['f']), true, 'nothing pending any more');
  // A given-back recognizer is taken again boosting the stream's keywords.
  await r.detach();
  await r.write(speech.subarray(0, 1600), 6);
  assert.deepEqual(asked, [['e']]);
  await r.close();
});
