// ForcedAligner (PocketSphinx with a grammar of the known text) on Flite audio: its word boundaries
// against Flite's own segment times, words missing from the dictionary, silences kept in place,
// tokens nothing can pronounce, and the binding's argument checks.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePcm16MonoWav } from '../../src/audio/wav.js';
import { ForcedAligner } from '../../src/engines/pocketsphinx/aligner.js';
import { loadNative } from '../../src/engines/pocketsphinx/binding.js';
import { fillGaps, spokenWords } from '../../src/tts/timestamps.js';

const aligner = new ForcedAligner({ decoders: 2 });
const wav = path.join(tmpdir(), `parla-aligner-test-${process.pid}.wav`);
after(() => rmSync(wav, { force: true }));

/** Flite's audio of `text` and its phone segments (name, end time). */
function fliteWithSegments(text: string): { pcm: Int16Array; segments: Array<{ phone: string; end: number }> } {
  const out = execFileSync('flite', ['-voice', 'slt', '-t', text, '-o', wav, '-psdur']).toString();
  const segments = out
    .trim()
    .split(/\s+/)
    .map((x) => ({ phone: x.split(':')[0]!, end: Number(x.split(':')[1]) }));
  return { pcm: decodePcm16MonoWav(readFileSync(wav))!.samples, segments };
}

describe('ForcedAligner', () => {
  test('is available here', () => assert.deepEqual(aligner.status(), { available: true }));

  test("word starts within a few frames of Flite's own phone times", async () => {
    const text = 'She bought three apples and a loaf of bread at the market.';
    const { pcm, segments } = fliteWithSegments(text);
    const words = spokenWords(text);
    const spans = await aligner.align(
      pcm,
      words.map((w) => w.word),
    );
    assert.ok(spans.every((s) => s !== null));
    // "bought" begins where the phones of "she" (sh iy) end, after the leading pause.
    const speech = segments.filter((s) => s.phone !== 'pau');
    const sheEnd = speech[1]!.end;
    assert.ok(Math.abs(spans[1]!.start - sheEnd) < 0.05, `"bought" at ${spans[1]!.start}, Flite says ${sheEnd}`);
    // The last word ends where Flite's last phone ends.
    const lastEnd = speech.at(-1)!.end;
    assert.ok(Math.abs(spans.at(-1)!.end - lastEnd) < 0.05, `"market" ends at ${spans.at(-1)!.end}, Flite says ${lastEnd}`);
  });

  test('a word missing from the dictionary is pronounced by Flite and placed', async () => {
    const text = 'The zorblax glimmered quietly.';
    const { pcm } = fliteWithSegments(text);
    const spans = await aligner.align(
      pcm,
      spokenWords(text).map((w) => w.word),
    );
    assert.ok(
      spans.every((s) => s !== null),
      JSON.stringify(spans),
    );
    assert.ok(spans[1]!.end - spans[1]!.start > 0.3, `zorblax lasts ${spans[1]!.end - spans[1]!.start} s`);
  });

  test('a long silence in the audio stays where it is (no voice activity detection)', async () => {
    const a = fliteWithSegments('Good morning everyone.').pcm;
    const b = fliteWithSegments('Let us begin.').pcm;
    const gap = new Int16Array(16000 * 2);
    const joined = new Int16Array(a.length + gap.length + b.length);
    joined.set(a, 0);
    joined.set(b, a.length + gap.length);
    const spans = await aligner.align(joined, ['good', 'morning', 'everyone', 'let', 'us', 'begin']);
    const alone = await aligner.align(b, ['let', 'us', 'begin']);
    const shift = spans[3]!.start - alone[0]!.start;
    const expected = (a.length + gap.length) / 16000;
    assert.ok(Math.abs(shift - expected) < 0.05, `"let" moved by ${shift} s, the audio before it lasts ${expected} s`);
  });

  test("tokens nothing can pronounce come back null and share their neighbour's time", async () => {
    const { pcm } = fliteWithSegments('Hello world.');
    const tokens = ['Hello', '\u2603\u2603', 'world'];
    const spans = await aligner.align(pcm, tokens);
    assert.equal(spans[1], null);
    assert.ok(spans[0] && spans[2]);
    const words = fillGaps(
      tokens.map((w, i) => ({ word: w, from: i * 10, to: i * 10 + w.length })),
      spans,
      pcm.length / 16000,
    );
    assert.ok(words[1]!.start >= words[0]!.start && words[1]!.end <= words[2]!.start + 1e-9, JSON.stringify(words));
  });

  test('concurrent alignments on two decoders give the same answer as one at a time', async () => {
    const { pcm } = fliteWithSegments('We need more time to finish the project properly.');
    const tokens = spokenWords('We need more time to finish the project properly.').map((w) => w.word);
    const one = await aligner.align(pcm, tokens);
    const many = await Promise.all(Array.from({ length: 4 }, () => aligner.align(pcm, tokens)));
    for (const m of many) assert.deepEqual(m, one);
  });

  test('the binding refuses bad arguments with a TypeError or RangeError', async () => {
    const res = loadNative();
    assert.ok('native' in res);
    const { MODEL_FILES } = await import('../../src/engines/pocketsphinx/binding.js');
    const d = new res.native.Decoder(['-hmm', MODEL_FILES.hmm, '-dict', MODEL_FILES.dict, '-remove_silence', 'no']);
    await d.init();
    assert.throws(() => d.align(new Float32Array(4) as never, ['a'], []), TypeError);
    assert.throws(() => d.align(new Int16Array(4), [1 as never], []), TypeError);
    assert.throws(() => d.align(new Int16Array(4), ['a'], [{ word: 'x' } as never]), TypeError);
    assert.throws(() => d.align(new Int16Array(4), [], []), RangeError);
    await assert.rejects(d.align(new Int16Array(1600), ['notawordxyzzy'], []), /not in the dictionary/);
  });
});
