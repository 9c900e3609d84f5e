// One contract suite for every SttEngine (src/engines/engine.ts), like the Store and Limiter
// suites: what batch transcription and real-time streams rely on from any recognizer. Each
// engine's own test file runs it and keeps what is particular to that engine (accuracy figures,
// keyword boosting, its native binding). A neural recognizer joins by calling runSttEngineContract.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { concatInt16, silence } from '../../src/audio/pcm.js';
import {
  EngineError,
  type RecognitionOptions,
  type RecognitionResult,
  type RecognizedUtterance,
  type SttEngine,
} from '../../src/engines/engine.js';

const RATE = 16000;

export interface SttEngineHandle {
  engine: SttEngine;
  /** Options for a language and profile the engine serves. */
  options: RecognitionOptions;
  /** A short command (a few words, silence around it) that the engine recognizes word for word. */
  command: { pcm: Int16Array; words: string };
  close(): Promise<void>;
}

const text = (r: RecognitionResult | Array<RecognizedUtterance | null>) =>
  ('utterances' in r ? r.utterances : r).flatMap((u) => u?.words.map((w) => w.word) ?? []).join(' ');

/** Words in order, inside the audio, bracketed by their utterance; no filler or noise markers. */
function assertWellFormed(r: RecognitionResult, seconds: number): void {
  assert.ok(Math.abs(r.duration - seconds) < 1e-6, `duration ${r.duration} for ${seconds} s of audio`);
  let last = 0;
  for (const u of r.utterances) {
    assert.ok(u.words.length > 0, 'no empty utterance');
    assert.equal(u.start, u.words[0]!.start);
    assert.equal(u.end, u.words.at(-1)!.end);
    for (const w of u.words) {
      assert.match(w.word, /^[^\s<>[\]()]+$/, `a word, not a marker: ${w.word}`);
      assert.ok(
        w.start >= last - 1e-9 && w.end > w.start && w.end <= r.duration + 0.02,
        `ordered and inside the audio: ${JSON.stringify(w)}`,
      );
      if (w.confidence !== undefined) assert.ok(w.confidence >= 0 && w.confidence <= 1, `confidence ${w.confidence}`);
      last = w.end;
    }
  }
}

/** Writes audio to a stream in 0.1 s pieces, as a real-time client sends it. */
async function feed(stream: { write(pcm: Int16Array): Promise<void> }, pcm: Int16Array): Promise<void> {
  for (let i = 0; i < pcm.length; i += RATE / 10) await stream.write(pcm.subarray(i, i + RATE / 10));
}

export function runSttEngineContract(name: string, open: () => Promise<SttEngineHandle>): void {
  describe(`SttEngine contract: ${name}`, () => {
    let h: SttEngineHandle;
    let engine: SttEngine;
    let cmd: Int16Array;

    before(async () => {
      h = await open();
      engine = h.engine;
      cmd = h.command.pcm;
    });
    after(() => h.close());

    test('available, serving a list of distinct language codes that includes its test language', () => {
      assert.deepEqual(engine.status(), { available: true });
      const languages = engine.languages();
      assert.ok(languages.includes(h.options.language), `${h.options.language} in ${languages.join(', ')}`);
      assert.equal(new Set(languages).size, languages.length, 'no code twice');
      for (const code of languages) assert.match(code, /^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'a BCP 47 language tag');
    });

    test('recognizes the command word for word, with well-formed timings', async () => {
      const r = await engine.recognize(cmd, h.options);
      assert.equal(text(r), h.command.words);
      assertWellFormed(r, cmd.length / RATE);
    });

    test('silence is no words, and its duration is still reported', async () => {
      const r = await engine.recognize(silence(2, RATE), h.options);
      assert.deepEqual(r.utterances, []);
      assert.equal(r.duration, 2);
    });

    test("timings are on the audio's timeline: leading silence moves every word by its length", async () => {
      const a = (await engine.recognize(cmd, h.options)).utterances.flatMap((u) => u.words);
      const b = await engine.recognize(concatInt16([silence(2, RATE), cmd]), h.options);
      assert.equal(text(b), h.command.words);
      const wb = b.utterances.flatMap((u) => u.words);
      a.forEach((w, i) => assert.ok(Math.abs(wb[i]!.start - w.start - 2) < 0.05, `${w.word}: ${w.start} -> ${wb[i]!.start}`));
    });

    test('two utterances separated by a pause come back as two utterances', async () => {
      const r = await engine.recognize(concatInt16([cmd, silence(1.5, RATE), cmd]), h.options);
      assert.equal(r.utterances.length, 2);
      assert.equal(text([r.utterances[0]!]), h.command.words);
      assert.equal(text([r.utterances[1]!]), h.command.words);
      assert.ok(r.utterances[1]!.start > cmd.length / RATE + 1.5);
      assertWellFormed(r, (2 * cmd.length) / RATE + 1.5);
    });

    test("a stream: interim words while audio arrives, then the batch's words and times", async () => {
      const batch = (await engine.recognize(cmd, h.options)).utterances.flatMap((u) => u.words);
      const stream = await engine.openStream(h.options);
      try {
        await feed(stream, cmd.subarray(0, Math.floor(cmd.length * 0.7)));
        const partial = await stream.partial();
        assert.ok(partial && partial.words.length > 0, 'interim words mid-utterance');
        await feed(stream, cmd.subarray(Math.floor(cmd.length * 0.7)));
        const final = await stream.finalizeUtterance();
        assert.equal(text([final]), h.command.words);
        final!.words.forEach((w, i) =>
          assert.ok(Math.abs(w.start - batch[i]!.start) < 0.05, `${w.word} at ${w.start}, batch ${batch[i]!.start}`),
        );
        assert.equal(await stream.finalizeUtterance(), null, 'nothing left to finalize');
      } finally {
        await stream.close();
      }
    });

    test("a stream's timeline runs from 0 across utterances; a closed stream refuses audio", async () => {
      const stream = await engine.openStream(h.options);
      await feed(stream, cmd);
      const first = await stream.finalizeUtterance();
      await feed(stream, silence(2, RATE));
      await feed(stream, cmd);
      const second = await stream.finalizeUtterance();
      await stream.close();
      assert.equal(text([first]), h.command.words);
      assert.equal(text([second]), h.command.words);
      const offset = cmd.length / RATE + 2;
      assert.ok(Math.abs(second!.start - first!.start - offset) < 0.05, `second utterance at ${second!.start}, first at ${first!.start}`);
      await assert.rejects(stream.write(cmd), EngineError);
      await stream.close(); // twice is harmless
    });

    test('a language it does not serve is an EngineError, in batch and for a stream', async () => {
      const other = { ...h.options, language: 'xx-XX' };
      await assert.rejects(engine.recognize(cmd, other), (e: unknown) => e instanceof EngineError && /xx-XX/.test(e.message));
      await assert.rejects(engine.openStream(other), (e: unknown) => e instanceof EngineError && /xx-XX/.test(e.message));
    });

    test('concurrency() recognitions at once, on views into one larger recording (pieces of a long one), each as the audio alone', async () => {
      const n = engine.concurrency?.(h.options) ?? 1;
      assert.ok(Number.isInteger(n) && n >= 1, `concurrency ${n}`);
      const stride = cmd.length + RATE / 2;
      const joined = new Int16Array((n + 1) * stride);
      for (let i = 0; i <= n; i++) joined.set(cmd, i * stride);
      // Views that do not start at their buffer's start: an engine must read only the view.
      const views = Array.from({ length: n }, (_, i) => joined.subarray((i + 1) * stride, (i + 1) * stride + cmd.length));
      const results = await Promise.all(views.map((v) => engine.recognize(v, h.options)));
      for (const r of results) {
        assert.equal(text(r), h.command.words);
        assertWellFormed(r, cmd.length / RATE);
      }
    });

    test("an aborted request rejects with the abort's reason, and the engine serves on", async () => {
      const ac = new AbortController();
      ac.abort(new Error('client went away'));
      await assert.rejects(engine.recognize(cmd, h.options, ac.signal), /client went away/);
      assert.equal(text(await engine.recognize(cmd, h.options)), h.command.words);
    });
  });
}
