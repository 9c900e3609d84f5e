// FliteEngine, both ways it runs (decision #88): libflite through the native addon and Debian's
// flite program. The TTS engine contract on each, then what is Flite's own: its voices at their
// real rate, the cap on syntheses at once, an abort stopping the synthesis (the process killed, or
// the addon's vocoder stopped), the unavailable path; and the addon's audio is the program's,
// sample for sample, for every voice and the settings Parla uses (speed, pitch, F0 mean).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { WorkerPool } from '../../src/workers/pool.js';
import { createWorkerPool } from '../../src/tasks/table.js';
import { FliteEngine, FLITE_LANGUAGES, FLITE_VOICES } from '../../src/engines/flite/flite-engine.js';
import { loadFliteNative } from '../../src/engines/flite/flite-native.js';
import { EngineError, type SynthesisRequest } from '../../src/engines/engine.js';
import { rms, speechSpan } from '../../src/audio/analysis.js';
import { resampleInt16 } from '../../src/audio/resample.js';
import { concatInt16 } from '../../src/audio/pcm.js';
import { runTtsEngineContract } from './tts-engine-contract.js';

/** Flite processes this test started: children of its spawner helper (spawner.ts), or its own. */
function fliteChildren(): string[] {
  const lines = (r: { stdout: string }) => r.stdout.split('\n').filter(Boolean);
  const children = lines(spawnSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' }));
  return lines(spawnSync('pgrep', ['-P', [process.pid, ...children].join(','), '-x', 'flite'], { encoding: 'utf8' }));
}

const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the green forest.';
const LONG = Array.from({ length: 15 }, (_, i) => `This is sentence number ${i + 1} of a long text that takes a while to say.`).join(' ');

// The addon is built by scripts/build.sh whenever flite1-dev is installed (scripts/setup.sh installs
// it): a missing addon here is a build fault, not a reason to skip.
const addon = loadFliteNative();
test('the native Flite addon is built and loads', () => {
  assert.ok('native' in addon, 'error' in addon ? addon.error : '');
});

for (const native of [true, false]) {
  const mode = native ? 'native' : 'program';
  runTtsEngineContract(`FliteEngine (${mode})`, async () => {
    const pool = createWorkerPool({ threads: 2, maxQueue: 16 });
    return { engine: new FliteEngine(pool, { maxProcesses: 2, native }), voice: 'slt', language: 'en-US', close: () => pool.close() };
  });
  describeFlite(native);
}

function describeFlite(native: boolean): void {
  describe(`FliteEngine (${native ? 'native' : 'program'})`, () => {
    let pool: WorkerPool;
    let engine: FliteEngine;
    const req = (over: Partial<SynthesisRequest> = {}): SynthesisRequest => ({
      text: TEXT,
      engineVoice: 'slt',
      language: 'en-US',
      speed: 1,
      pitch: 0,
      style: 'normal',
      ...over,
    });

    before(() => {
      pool = createWorkerPool({ threads: 2, maxQueue: 16 });
      engine = new FliteEngine(pool, { maxProcesses: 2, native });
      assert.equal(engine.runs, native ? 'native' : 'program');
    });
    after(async () => {
      await pool.close();
    });

    test('serves English only', () => {
      assert.deepEqual(engine.languages(), FLITE_LANGUAGES);
      assert.ok(engine.languages().every((l) => l.startsWith('en-')));
    });

    test('every voice speaks, at the sample rate its WAV declares (16 kHz here)', async () => {
      for (const voice of FLITE_VOICES) {
        const r = await engine.synthesize(req({ engineVoice: voice, text: 'Hello there, how are you today?' }));
        assert.equal(r.sampleRate, 16000, voice);
        assert.ok(rms(r.samples) > 0.02, `${voice} rms ${rms(r.samples)}`);
        const span = speechSpan(r.samples, r.sampleRate);
        assert.ok(span > 1 && span < 4, `${voice} lasts ${span} s`);
      }
      await assert.rejects(
        engine.synthesize(req({ engineVoice: 'nobody' })),
        (e: unknown) => e instanceof EngineError && /unknown voice/.test(e.message),
      );
    });

    test('never runs more syntheses than its cap', async () => {
      let peak = 0;
      const timer = setInterval(() => (peak = Math.max(peak, engine.processesRunning)), 2);
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => engine.synthesize(req({ text: `Sentence ${i}, said in turn.`, engineVoice: 'kal16' }))),
      );
      clearInterval(timer);
      assert.ok(peak >= 1 && peak <= 2, `peak ${peak}`);
      assert.equal(engine.processesRunning, 0);
      assert.ok(results.every((r) => r.samples.length > 0));
    });

    test('an abort stops the running synthesis and frees its slot at once', async () => {
      const t0 = performance.now();
      await engine.synthesize(req({ text: LONG }));
      const full = performance.now() - t0;
      const ac = new AbortController();
      const started = performance.now();
      const run = engine.synthesize(req({ text: LONG }), ac.signal);
      setTimeout(() => {
        if (!native) assert.ok(fliteChildren().length > 0, 'flite is running before the abort');
        else assert.equal(engine.processesRunning, 1, 'a synthesis is running before the abort');
        ac.abort(new Error('client went away'));
      }, 50);
      await assert.rejects(run, /client went away/);
      assert.deepEqual(fliteChildren(), [], 'no flite process left');
      const took = performance.now() - started;
      // The program is killed at once. The addon stops at the vocoder, which comes after Flite's
      // text analysis and parameter generation (about half of slt's time): that it stops at all
      // is tested on the addon below, without a clock.
      if (!native) assert.ok(took < full / 2, `aborted after ${took} ms; the full synthesis takes ${full} ms`);
      assert.equal(engine.processesRunning, 0);
      // A request waiting for a slot leaves the queue when aborted.
      const solo = new FliteEngine(pool, { maxProcesses: 1, native });
      const ac1 = new AbortController();
      const first = solo.synthesize(req({ text: LONG }), ac1.signal);
      const ac2 = new AbortController();
      const queued = solo.synthesize(req(), ac2.signal);
      ac2.abort(new Error('gone'));
      await assert.rejects(queued, /gone/);
      ac1.abort(new Error('first gone'));
      await assert.rejects(first, /first gone/);
      assert.equal(solo.processesRunning, 0);
    });

    test('without the addon, a missing binary makes the engine unavailable, with a reason and no languages', async () => {
      const missing = new FliteEngine(pool, { binary: '/nonexistent/flite', native: false });
      const st = missing.status();
      assert.equal(st.available, false);
      assert.match(st.reason ?? '', /not installed/);
      assert.deepEqual(missing.languages(), []);
      await assert.rejects(missing.synthesize(req()), (e: unknown) => e instanceof EngineError && !e.retryable);
    });
  });
}

describe('FliteEngine: the addon speaks as the program does', () => {
  let pool: WorkerPool;
  before(() => {
    pool = createWorkerPool({ threads: 2, maxQueue: 16 });
  });
  after(async () => {
    await pool.close();
  });

  // Punctuation, numbers and unvoiced sounds (the vocoders' noise comes from rand(), restarted per
  // synthesis as in a fresh program).
  const SAID = 'She said: "Fine, let us proceed!" Costs rose 15% in 2024; shh, psst, six thick thistle sticks.';
  const cases: Array<Partial<SynthesisRequest>> = [
    ...FLITE_VOICES.map((engineVoice) => ({ engineVoice })),
    { engineVoice: 'slt', speed: 1.25, pitch: 3 },
    { engineVoice: 'awb', speed: 0.8, pitch: -4 },
    { engineVoice: 'kal16', pitch: 5 },
    { engineVoice: 'kal16@185', pitch: 2, speed: 1.1 },
    { engineVoice: 'rms', speed: 1.5, pitch: 2 },
  ];

  test('every voice and setting: the same samples, also when synthesized two at a time', async () => {
    const nat = new FliteEngine(pool, { maxProcesses: 2, native: true });
    const prog = new FliteEngine(pool, { maxProcesses: 2, native: false });
    for (const c of cases) {
      const r: SynthesisRequest = { text: SAID, engineVoice: 'slt', language: 'en-US', speed: 1, pitch: 0, style: 'normal', ...c };
      const [a, b, p] = await Promise.all([nat.synthesize(r), nat.synthesize(r), prog.synthesize(r)]);
      const label = `${c.engineVoice} speed ${r.speed} pitch ${r.pitch}`;
      assert.equal(a.sampleRate, p.sampleRate, label);
      assert.ok(p.samples.length > 16000, label);
      assert.deepEqual(a.samples, p.samples, `${label}: addon and program differ`);
      assert.deepEqual(b.samples, a.samples, `${label}: two syntheses at once differ`);
    }
    nat.close();
    prog.close();
  });

  test('the addon refuses malformed calls with a TypeError, never a crash', () => {
    const n = 'native' in addon ? addon.native : null;
    assert.ok(n);
    assert.throws(() => (n.synthesize as unknown as (...a: unknown[]) => unknown)('slt'), TypeError);
    assert.throws(() => n.synthesize('slt', 'hi', ['duration_stretch']), TypeError);
    assert.throws(() => n.synthesize('slt', 'a\0b', []), TypeError);
    assert.throws(() => n.synthesize('slt', 'hi', [], new Int32Array(0)), TypeError);
  });

  test('a cancel flag set before the vocoder stops the synthesis (the promise rejects)', async () => {
    const n = 'native' in addon ? addon.native : null;
    const cancel = new Int32Array(1);
    const run = n!.synthesize('slt', SAID.repeat(3), [], cancel);
    cancel[0] = 1;
    await assert.rejects(run, /cancelled/);
    // The same call without the flag speaks.
    assert.ok((await n!.synthesize('slt', SAID, [], new Int32Array(1))).samples.length > 16000);
  });

  test('live (streams): the pieces are synthesize() resampled, sample for sample, ~0.1 s each; only with the addon', async () => {
    const nat = new FliteEngine(pool, { maxProcesses: 2, native: true });
    const prog = new FliteEngine(pool, { maxProcesses: 2, native: false });
    // The program makes a sentence whole: the stream renders it so (speak-items.ts).
    assert.equal(prog.synthesizeLive, undefined);
    for (const c of cases) {
      const r: SynthesisRequest = {
        text: SAID,
        engineVoice: 'slt',
        language: 'en-US',
        speed: 1,
        pitch: 0,
        style: 'normal',
        gainDb: 2,
        ...c,
      };
      const label = `${c.engineVoice} speed ${r.speed} pitch ${r.pitch}`;
      const whole = await nat.synthesize(r);
      for (const rate of [24000, 16000]) {
        const expected = resampleInt16(whole.samples, whole.sampleRate, rate);
        const pieces: Int16Array[] = [];
        await nat.synthesizeLive!(r, rate, (pcm) => pieces.push(pcm));
        const got = concatInt16(pieces);
        assert.equal(got.length, expected.length, `${label} at ${rate}`);
        assert.deepEqual(got, expected, `${label} at ${rate}: not synthesize()'s samples`);
        assert.equal(nat.processesRunning, 0);
        // The vocoder's pieces (rms with a pitch shift is shifted whole, then sent in pieces too).
        assert.ok(pieces.length > 30, `${label}: ${pieces.length} pieces`);
      }
    }
    nat.close();
    prog.close();
  });

  test('live: an abort stops the vocoder, frees the slot, and keeps the pool workers; a failing voice fails the call', async () => {
    const nat = new FliteEngine(pool, { maxProcesses: 1, native: true });
    const threads = pool.threadIds();
    const ac = new AbortController();
    const pieces: Int16Array[] = [];
    const run = nat.synthesizeLive!(
      { text: SAID.repeat(8), engineVoice: 'slt', language: 'en-US', speed: 1, pitch: 0, style: 'normal' },
      24000,
      (p) => {
        pieces.push(p);
        if (pieces.length === 3) ac.abort(new Error('client went away'));
      },
      ac.signal,
    );
    await assert.rejects(run, /client went away/);
    assert.equal(pieces.length, 3, 'nothing is handed over after the abort');
    assert.equal(nat.processesRunning, 0);
    assert.deepEqual(pool.threadIds(), threads, 'the same worker threads');
    await assert.rejects(
      nat.synthesizeLive!(
        { text: 'Hi.', engineVoice: 'nobody', language: 'en-US', speed: 1, pitch: 0, style: 'normal' },
        24000,
        () => undefined,
      ),
      (e: unknown) => e instanceof EngineError && !e.retryable,
    );
    // The slot is free again: a whole sentence streams.
    const after: Int16Array[] = [];
    await nat.synthesizeLive!(
      { text: 'Still here.', engineVoice: 'slt', language: 'en-US', speed: 1, pitch: 0, style: 'normal' },
      24000,
      (p) => after.push(p),
    );
    assert.ok(concatInt16(after).length > 12000);
    nat.close();
  });

  test('the addon hands pieces that add up to the whole; a throwing or malformed callback is refused or survived', async () => {
    const n = 'native' in addon ? addon.native : null;
    const whole = await n!.synthesize('awb', SAID, []);
    const pieces: Int16Array[] = [];
    const rates = new Set<number>();
    const rest = await n!.synthesize('awb', SAID, [], undefined, (p, rate) => {
      pieces.push(p);
      rates.add(rate);
    });
    assert.deepEqual(concatInt16([...pieces, rest.samples]), whole.samples);
    assert.deepEqual([...rates], [whole.sampleRate]);
    const thrown = await n!.synthesize('awb', SAID, [], undefined, () => {
      throw new Error('a bad callback');
    });
    assert.equal(thrown.sampleRate, whole.sampleRate, 'the synthesis ends normally');
    assert.throws(() => n!.synthesize('slt', 'hi', [], undefined, 5 as unknown as () => void), TypeError);
  });

  test('the addon hands a piece over while its vocoder still runs: a cancel set from the first piece stops it', async () => {
    const n = 'native' in addon ? addon.native : null;
    const text = SAID.repeat(3);
    let whole = 0;
    await n!.synthesize('slt', text, [], undefined, (p) => (whole += p.length));
    // Were the pieces handed over only once the wave was made, this cancel would come too late and
    // the call would end normally with all of them.
    const cancel = new Int32Array(1);
    let got = 0;
    await assert.rejects(
      n!.synthesize('slt', text, [], cancel, (p) => {
        got += p.length;
        cancel[0] = 1;
      }),
      /cancelled/,
    );
    assert.ok(got > 0 && got < whole / 2, `${got} of ${whole} samples before the vocoder stopped`);
  });

  test('an unknown voice is refused by the addon', async () => {
    const n = 'native' in addon ? addon.native : null;
    await assert.rejects(n!.synthesize('nobody', 'hello', []), /unknown voice/);
  });
});
