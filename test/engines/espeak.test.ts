// EspeakEngine on a real worker pool: the TTS engine contract, then what is eSpeak's own: work
// on the pool, word timings, its native whisper and emphasis, live synthesis, its two builds, the
// warm worker an abort keeps, and its language voices.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkerPool } from '../../src/workers/pool.js';
import { createWorkerPool } from '../../src/tasks/table.js';
import { EspeakEngine, espeakWpm } from '../../src/engines/espeak/espeak-engine.js';
import { escapeSsml, espeakLoadedInThisThread } from '../../src/engines/espeak/espeak-worker.js';
import type { SynthesisRequest } from '../../src/engines/engine.js';
import { rms, speechSpan } from '../../src/audio/analysis.js';
import { medianF0Wide, voicedShare } from './tts-measure.js';
import { runTtsEngineContract } from './tts-engine-contract.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the green forest.';

runTtsEngineContract('EspeakEngine', async () => {
  const pool = createWorkerPool({ threads: 2, maxQueue: 16 });
  return { engine: new EspeakEngine(pool), voice: '', language: 'en-US', close: () => pool.close() };
});

describe('EspeakEngine', () => {
  let pool: WorkerPool;
  let engine: EspeakEngine;
  const req = (over: Partial<SynthesisRequest> = {}): SynthesisRequest => ({
    text: TEXT,
    engineVoice: '',
    language: 'en-US',
    speed: 1,
    pitch: 0,
    style: 'normal',
    ...over,
  });
  let base: { span: number; f0: number; voiced: number; rms: number };

  before(async () => {
    pool = createWorkerPool({ threads: 2, maxQueue: 16 });
    engine = new EspeakEngine(pool);
    const r = await engine.synthesize(req());
    base = {
      span: speechSpan(r.samples, r.sampleRate),
      f0: medianF0Wide(r.samples, r.sampleRate),
      voiced: voicedShare(r.samples, r.sampleRate),
      rms: rms(r.samples),
    };
  });
  after(async () => {
    await pool.close();
  });

  test('serves every language its map names (over 200 codes)', () => {
    assert.ok(engine.languages().length > 200);
  });

  test('synthesizes on the worker pool, never on the main thread: 22,050 Hz, a male default voice', async () => {
    const before = pool.stats().completed;
    const r = await engine.synthesize(req());
    assert.equal(pool.stats().completed, before + 1, 'one pool task per synthesis');
    assert.equal(espeakLoadedInThisThread(), false, 'eSpeak never runs on the main thread');
    assert.equal(r.sampleRate, 22050);
    assert.ok(base.f0 > 70 && base.f0 < 160, `male default voice F0 ${base.f0}`);
  });

  test('word timings, when asked for, follow the text, in order, inside the audio', async () => {
    const text = 'Salt & pepper <b> are "fine" here. Second sentence.';
    assert.deepEqual((await engine.synthesize(req({ text }))).words ?? [], [], 'none unless asked for');
    const r = await engine.synthesize(req({ text, wordTimings: true }));
    const words = r.words ?? [];
    const duration = r.samples.length / r.sampleRate;
    assert.deepEqual(
      words.map((w) => w.word).filter((w) => /\w/.test(w)),
      ['Salt', 'pepper', 'b', 'are', 'fine', 'here', 'Second', 'sentence'],
    );
    assert.ok(
      words.some((w) => w.word === '&'),
      'the escaped ampersand maps back to "&"',
    );
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      assert.ok(text.includes(w.word), `${w.word} is a piece of the text`);
      assert.ok(w.start >= 0 && w.end >= w.start && w.end <= duration + 1e-6, JSON.stringify(w));
      if (i > 0) assert.ok(w.start >= words[i - 1]!.start, 'in order');
    }
    assert.ok(words.at(-1)!.start > duration / 2, 'the last word is late in the audio');
  });

  test('text reaches eSpeak escaped, and speed maps to words per minute', () => {
    assert.equal(escapeSsml('a < b && c > "d"'), 'a &lt; b &amp;&amp; c &gt; "d"');
    assert.equal(espeakWpm(2), 350);
    assert.equal(espeakWpm(0.5), 87.5);
  });

  test('whisper is unvoiced: far weaker periodicity than the normal voice', async () => {
    const r = await engine.synthesize(req({ style: 'whisper' }));
    const v = voicedShare(r.samples, r.sampleRate);
    assert.ok(rms(r.samples) > 0.02, 'still audible');
    assert.ok(v < base.voiced / 2, `voiced share ${v} against ${base.voiced}`);
  });

  test('emphasis stresses: louder and slower than the same text said normally', async () => {
    const r = await engine.synthesize(req({ style: 'emphasis' }));
    assert.ok(rms(r.samples) > base.rms * 1.3, `rms ${rms(r.samples)} against ${base.rms}`);
    assert.ok(speechSpan(r.samples, r.sampleRate) > base.span * 1.1, 'slower');
  });

  test('live synthesis hands the audio over resampled, as long as the whole synthesis', async () => {
    const whole = await engine.synthesize(req());
    for (const [rate, pitch, wordTimings] of [
      [24000, 0, false],
      [22050, 0, false],
      [16000, 3, false],
      [24000, 0, true],
      [16000, 3, true],
    ] as const) {
      const pieces: Int16Array[] = [];
      await engine.synthesizeLive(req({ pitch, wordTimings }), rate, (pcm) => pieces.push(pcm));
      const total = pieces.reduce((n, p) => n + p.length, 0);
      const expected = (whole.samples.length * rate) / whole.sampleRate;
      assert.ok(Math.abs(total - expected) / expected < 0.02, `${rate} Hz, ${pitch} st: ${total} samples, expected ~${expected}`);
      // ~100 ms pieces (the first sentence of audio is ~6 s).
      assert.ok(pieces.length > 30, `${pieces.length} pieces`);
    }
  });

  test('both eSpeak builds say the same text alike: same length, same pitch', async () => {
    for (const over of [
      {},
      { language: 'de-DE', text: 'Grüße aus München, schöne Grüße.', engineVoice: 'f2:60' },
      { speed: 1.6, style: 'emphasis' as const },
    ]) {
      const [program, library] = await Promise.all([engine.synthesize(req(over)), engine.synthesize(req({ ...over, wordTimings: true }))]);
      const d = program.samples.length / library.samples.length;
      assert.ok(d > 0.97 && d < 1.03, `${JSON.stringify(over)}: length ratio ${d}`);
      const f = medianF0Wide(program.samples, program.sampleRate) / medianF0Wide(library.samples, library.sampleRate);
      assert.ok(f > 0.95 && f < 1.05, `${JSON.stringify(over)}: F0 ratio ${f}`);
    }
  });

  test('an abort keeps the worker and its warm eSpeak instance', async () => {
    const pre = new AbortController();
    pre.abort(new Error('gone before'));
    const done = pool.stats().completed;
    const threads = pool.threadIds();
    await assert.rejects(engine.synthesize(req(), pre.signal), /gone before/);
    assert.equal(pool.stats().completed, done, 'no task was queued');
    const ac = new AbortController();
    // A text that takes far longer than the 5 ms before the abort, on any machine.
    const run = engine.synthesize(req({ text: 'A sentence that takes a while to say. '.repeat(40) }), ac.signal);
    setTimeout(() => ac.abort(new Error('gone during')), 5);
    await assert.rejects(run, /gone during/);
    // The same worker threads answer: nothing was terminated and rebuilt (a new thread has a new id).
    const after = await Promise.all([engine.synthesize(req({ text: 'One.' })), engine.synthesize(req({ text: 'Two.' }))]);
    assert.ok(after.every((r) => r.samples.length > 0));
    assert.deepEqual(pool.threadIds(), threads, 'the same worker threads');
  });

  test('other languages use their own eSpeak voice', async () => {
    assert.ok(engine.languages().includes('de-DE') && engine.languages().includes('de'));
    assert.equal(engine.voiceFor('de-DE'), 'de');
    assert.equal(engine.voiceFor('en-GB'), 'en');
    const r = await engine.synthesize(
      req({ text: 'Grüße aus München, schöne Grüße.', language: 'de-DE', engineVoice: 'f2:60', wordTimings: true }),
    );
    assert.ok(rms(r.samples) > 0.03);
    assert.deepEqual(
      r.words?.map((w) => w.word),
      ['Grüße', 'aus', 'München', 'schöne', 'Grüße'],
    );
  });
});
