// FliteEngine with Debian's flite binary: the TTS engine contract, then what is Flite's own: its
// voices at their real rate, the process cap, an abort killing the process, the unavailable path.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EnginePool } from '../../src/workers/pool.js';
import { FliteEngine, FLITE_LANGUAGES, FLITE_VOICES } from '../../src/engines/flite/flite-engine.js';
import { EngineError, type SynthesisRequest } from '../../src/engines/engine.js';
import { rms, speechSpan } from '../../src/audio/analysis.js';
import { runTtsEngineContract } from './tts-engine-contract.js';

/** Process ids of flite processes this test process started. */
/** Flite processes this test started: children of its spawner helper (spawner.ts), or its own. */
function fliteChildren(): string[] {
  const lines = (r: { stdout: string }) => r.stdout.split('\n').filter(Boolean);
  const children = lines(spawnSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' }));
  return lines(spawnSync('pgrep', ['-P', [process.pid, ...children].join(','), '-x', 'flite'], { encoding: 'utf8' }));
}

const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the green forest.';
const LONG = Array.from({ length: 15 }, (_, i) => `This is sentence number ${i + 1} of a long text that takes a while to say.`).join(' ');

runTtsEngineContract('FliteEngine', async () => {
  const pool = new EnginePool({ threads: 2, maxQueue: 16 });
  return { engine: new FliteEngine(pool, { maxProcesses: 2 }), voice: 'slt', language: 'en-US', close: () => pool.close() };
});

describe('FliteEngine', () => {
  let pool: EnginePool;
  let engine: FliteEngine;
  const req = (over: Partial<SynthesisRequest> = {}): SynthesisRequest => ({ text: TEXT, engineVoice: 'slt', language: 'en-US', speed: 1, pitch: 0, style: 'normal', ...over });

  before(() => {
    pool = new EnginePool({ threads: 2, maxQueue: 16 });
    engine = new FliteEngine(pool, { maxProcesses: 2 });
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
    await assert.rejects(engine.synthesize(req({ engineVoice: 'nobody' })), (e: unknown) => e instanceof EngineError && /unknown voice/.test(e.message));
  });

  test('never runs more flite processes than its cap', async () => {
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, engine.processesRunning)), 2);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => engine.synthesize(req({ text: `Sentence ${i}, said in turn.`, engineVoice: 'kal16' }))));
    clearInterval(timer);
    assert.ok(peak >= 1 && peak <= 2, `peak ${peak}`);
    assert.equal(engine.processesRunning, 0);
    assert.ok(results.every((r) => r.samples.length > 0));
  });

  test('an abort kills the running process and frees its slot at once', async () => {
    const t0 = performance.now();
    await engine.synthesize(req({ text: LONG }));
    const full = performance.now() - t0;
    const ac = new AbortController();
    const started = performance.now();
    const run = engine.synthesize(req({ text: LONG }), ac.signal);
    setTimeout(() => {
      assert.ok(fliteChildren().length > 0, 'flite is running before the abort');
      ac.abort(new Error('client went away'));
    }, 50);
    await assert.rejects(run, /client went away/);
    assert.deepEqual(fliteChildren(), [], 'no flite process left');
    const took = performance.now() - started;
    assert.ok(took < full / 2, `aborted after ${took} ms; the full synthesis takes ${full} ms`);
    assert.equal(engine.processesRunning, 0);
    // A request waiting for a slot leaves the queue when aborted.
    const solo = new FliteEngine(pool, { maxProcesses: 1 });
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

  test('a missing binary makes the engine unavailable, with a reason and no languages', async () => {
    const missing = new FliteEngine(pool, { binary: '/nonexistent/flite' });
    const st = missing.status();
    assert.equal(st.available, false);
    assert.match(st.reason ?? '', /not installed/);
    assert.deepEqual(missing.languages(), []);
    await assert.rejects(missing.synthesize(req()), (e: unknown) => e instanceof EngineError && !e.retryable);
  });
});
