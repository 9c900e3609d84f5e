// One contract suite for every TtsEngine (src/engines/engine.ts), like the Store and Limiter
// suites: what the TTS service relies on from any engine it binds a model to. Each engine's own
// test file runs it and keeps only what is particular to that engine (eSpeak's word timings and
// live synthesis, Flite's process cap, ...). A neural engine joins by calling runTtsEngineContract.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError, type SynthesisRequest, type TtsEngine } from '../../src/engines/engine.js';
import { rms, speechSpan } from '../../src/audio/analysis.js';
import { medianF0Wide } from './tts-measure.js';

export interface TtsEngineHandle {
  engine: TtsEngine;
  /** A voice and language the engine serves: the request every test varies. */
  voice: string;
  language: string;
  close(): Promise<void>;
}

/** 19 words: at an ordinary speaking rate 5 to 7 seconds of speech with its pauses. */
const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the green forest.';

export function runTtsEngineContract(name: string, open: () => Promise<TtsEngineHandle>): void {
  describe(`TtsEngine contract: ${name}`, () => {
    let h: TtsEngineHandle;
    let engine: TtsEngine;
    let req: (over?: Partial<SynthesisRequest>) => SynthesisRequest;
    let base: { span: number; f0: number };

    before(async () => {
      h = await open();
      engine = h.engine;
      req = (over = {}) => ({ text: TEXT, engineVoice: h.voice, language: h.language, speed: 1, pitch: 0, style: 'normal', ...over });
      const r = await engine.synthesize(req());
      base = { span: speechSpan(r.samples, r.sampleRate), f0: medianF0Wide(r.samples, r.sampleRate) };
    });
    after(() => h.close());

    test('available, serving a list of distinct language codes that includes its test language', () => {
      assert.deepEqual(engine.status(), { available: true });
      const languages = engine.languages();
      assert.ok(languages.includes(h.language), `${h.language} in ${languages.join(', ')}`);
      assert.equal(new Set(languages).size, languages.length, 'no code twice');
      for (const code of languages) assert.match(code, /^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'a BCP 47 language tag');
    });

    test('speaks: audible mono 16-bit PCM at one sample rate, as long as the text takes to say', async () => {
      const r = await engine.synthesize(req());
      assert.ok(r.samples instanceof Int16Array);
      assert.ok(Number.isInteger(r.sampleRate) && r.sampleRate >= 8000 && r.sampleRate <= 48000, `rate ${r.sampleRate}`);
      assert.ok(rms(r.samples) > 0.02, `rms ${rms(r.samples)}`);
      assert.ok(base.span > 3 && base.span < 9, `speech lasts ${base.span} s`);
      assert.ok(base.f0 > 60 && base.f0 < 400, `a voice's F0: ${base.f0} Hz`);
    });

    test('speed 2.0 lasts about half as long as 1.0, speed 0.5 about twice', async () => {
      const [fast, slow] = await Promise.all([engine.synthesize(req({ speed: 2 })), engine.synthesize(req({ speed: 0.5 }))]);
      const fastRatio = speechSpan(fast.samples, fast.sampleRate) / base.span;
      const slowRatio = speechSpan(slow.samples, slow.sampleRate) / base.span;
      assert.ok(fastRatio > 0.4 && fastRatio < 0.62, `speed 2: ${fastRatio}`);
      assert.ok(slowRatio > 1.6 && slowRatio < 2.4, `speed 0.5: ${slowRatio}`);
    });

    test('+12 semitones doubles F0 and -12 halves it, duration unchanged', async () => {
      const [up, down] = await Promise.all([engine.synthesize(req({ pitch: 12 })), engine.synthesize(req({ pitch: -12 }))]);
      const upRatio = medianF0Wide(up.samples, up.sampleRate) / base.f0;
      const downRatio = medianF0Wide(down.samples, down.sampleRate) / base.f0;
      assert.ok(upRatio > 1.8 && upRatio < 2.2, `+12: F0 ratio ${upRatio}`);
      assert.ok(downRatio > 0.45 && downRatio < 0.56, `-12: F0 ratio ${downRatio}`);
      for (const r of [up, down]) {
        const d = speechSpan(r.samples, r.sampleRate) / base.span;
        assert.ok(d > 0.93 && d < 1.07, `duration ratio ${d}`);
      }
    });

    test('text is only text: markup and a leading dash are spoken, never obeyed', async () => {
      // Markup was parsed out by the TTS service; what reaches an engine must not be read as SSML
      // (a parsed break would add five seconds) or as a command-line option.
      const tag = await engine.synthesize(req({ text: '<break time="5s"/> one two' }));
      assert.ok(tag.samples.length / tag.sampleRate < 4, `${tag.samples.length / tag.sampleRate} s`);
      const dash = await engine.synthesize(req({ text: '-5 degrees tonight.' }));
      assert.ok(speechSpan(dash.samples, dash.sampleRate) > 0.8, 'spoken');
    });

    test('a language it does not serve is an EngineError, not speech in another language', async () => {
      await assert.rejects(
        engine.synthesize(req({ language: 'xx-XX' })),
        (e: unknown) => e instanceof EngineError && /xx-XX/.test(e.message),
      );
    });

    test('an abort rejects with its reason, before or during the work, and the engine serves on', async () => {
      const pre = new AbortController();
      pre.abort(new Error('gone before'));
      await assert.rejects(engine.synthesize(req(), pre.signal), /gone before/);
      const ac = new AbortController();
      const run = engine.synthesize(req(), ac.signal);
      setTimeout(() => ac.abort(new Error('gone during')), 5);
      await assert.rejects(run, /gone during/);
      const next = await engine.synthesize(req({ text: 'One more sentence.' }));
      assert.ok(rms(next.samples) > 0.02);
    });
  });
}
