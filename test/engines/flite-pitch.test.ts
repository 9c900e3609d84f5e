// Pitch on Flite voices: slt, awb and kal16 are moved by Flite itself (the F0 contour, not the
// formants), so a voice with a base pitch stays as understandable as the voice at its own pitch;
// rms ignores Flite's F0 settings and is shifted after synthesis, with its own spectral envelope
// laid back over the result. Understandable is measured the way bench/intelligibility.ts does:
// PocketSphinx's word error rate on the result.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkerPool } from '../../src/workers/pool.js';
import { createWorkerPool } from '../../src/tasks/table.js';
import { FliteEngine, nativePitchArgs } from '../../src/engines/flite/flite-engine.js';
import type { SynthesisRequest } from '../../src/engines/engine.js';
import { PocketSphinxEngine } from '../../src/engines/pocketsphinx/pocketsphinx-engine.js';
import { warmupUtterance } from '../../src/engines/pocketsphinx/warmup.js';
import { speechSpan } from '../../src/audio/analysis.js';
import { medianF0Wide } from './tts-measure.js';
import { wordErrorRate } from '../helpers/speech.js';

const SENTENCES = [
  'Please send the quarterly report to the finance team before noon.',
  'She bought fresh bread and cheese at the market this morning.',
  'The children planted tomatoes in the garden last spring.',
  'Remember to lock the door before you leave the office.',
];

describe('Flite pitch', () => {
  let pool: WorkerPool;
  let flite: FliteEngine;
  let recognizer: PocketSphinxEngine;
  const req = (text: string, engineVoice: string, pitch: number): SynthesisRequest => ({
    text,
    engineVoice,
    language: 'en-US',
    speed: 1,
    pitch,
    style: 'normal',
  });

  /** Word error rate over SENTENCES of the audio `render` makes of each. */
  async function wer(render: (text: string) => Promise<Int16Array>): Promise<number> {
    let errors = 0;
    let words = 0;
    for (const text of SENTENCES) {
      const r = await recognizer.recognize(await render(text), { language: 'en-US', profile: 'fast' });
      const heard = r.utterances.map((u) => u.words.map((w) => w.word).join(' ')).join(' ');
      const n = text.split(/\s+/).length;
      errors += wordErrorRate(text, heard) * n;
      words += n;
    }
    return errors / words;
  }

  before(async () => {
    pool = createWorkerPool({ threads: 2, maxQueue: 16 });
    flite = new FliteEngine(pool, { maxProcesses: 2 });
    recognizer = new PocketSphinxEngine({
      decodersPerProfile: 1,
      boostDecodersPerProfile: 0,
      profiles: ['fast'],
      warmup: warmupUtterance(),
    });
    await recognizer.whenReady();
  });
  after(async () => {
    await pool.close();
  });

  test('Flite moves the whole contour of slt, awb and kal16 by the interval; rms has no such setting', () => {
    assert.deepEqual(nativePitchArgs('slt', 0), []);
    assert.deepEqual(nativePitchArgs('slt', 12), ['--setf', 'f0_shift=2.00000', '--setf', 'int_f0_target_stddev=54.000']);
    assert.deepEqual(nativePitchArgs('kal16', -12), ['--setf', 'f0_shift=0.50000', '--setf', 'int_f0_target_stddev=5.500']);
    assert.equal(nativePitchArgs('rms', 3), null);
  });

  test('slt raised 4 and lowered 5 semitones by Flite is heard as well as slt at its own pitch', async () => {
    const own = await wer(async (t) => (await flite.synthesize(req(t, 'slt', 0))).samples);
    const up = await wer(async (t) => (await flite.synthesize(req(t, 'slt', 4))).samples);
    const down = await wer(async (t) => (await flite.synthesize(req(t, 'slt', -5))).samples);
    assert.ok(own <= 0.25, `slt at its own pitch: WER ${own}`);
    assert.ok(up <= own + 0.15 && down <= own + 0.15, `slt +4: WER ${up}, -5: ${down}, own pitch ${own}`);
  });

  test('rms lowered 2 semitones after synthesis keeps its formants and is heard about as well as at its own pitch', async () => {
    // Without the envelope laid back (src/audio/dsp/lpc.ts) this shift made a smaller speaker of
    // rms that the recognizer missed about half the words of.
    const own = await wer(async (t) => (await flite.synthesize(req(t, 'rms', 0))).samples);
    const down = await wer(async (t) => (await flite.synthesize(req(t, 'rms', -2))).samples);
    assert.ok(own <= 0.25, `rms at its own pitch: WER ${own}`);
    assert.ok(down <= own + 0.15, `rms -2: WER ${down}, own pitch ${own}`);
  });

  test('rms is shifted after synthesis: +12 doubles its F0, duration unchanged', async () => {
    const text = 'The quick brown fox jumps over the lazy dog, and then it runs far away.';
    const [base, up] = await Promise.all([flite.synthesize(req(text, 'rms', 0)), flite.synthesize(req(text, 'rms', 12))]);
    const ratio = medianF0Wide(up.samples, up.sampleRate) / medianF0Wide(base.samples, base.sampleRate);
    assert.ok(ratio > 1.8 && ratio < 2.2, `rms +12: F0 ratio ${ratio}`);
    const d = speechSpan(up.samples, up.sampleRate) / speechSpan(base.samples, base.sampleRate);
    assert.ok(d > 0.93 && d < 1.07, `duration ratio ${d}`);
  });
});
