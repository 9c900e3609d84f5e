// Word edges beside a pause moved onto the sound (src/engines/pocketsphinx/sound-edges.ts), on
// synthetic audio whose sound edges are known to the sample.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapEdgesToSound } from '../../src/engines/pocketsphinx/sound-edges.js';

const RATE = 16000;

/** Audio of `seconds` with a low noise floor and tones of `amplitude` over [from, to) seconds. */
function audio(seconds: number, parts: Array<{ from: number; to: number; amplitude: number }>): Int16Array {
  const pcm = new Int16Array(Math.round(seconds * RATE));
  let seed = 7;
  for (let i = 0; i < pcm.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    pcm[i] = ((seed >> 16) % 21) - 10;
  }
  for (const p of parts)
    for (let i = Math.round(p.from * RATE); i < Math.round(p.to * RATE); i++)
      pcm[i] = Math.round(p.amplitude * Math.sin((2 * Math.PI * 220 * i) / RATE));
  return pcm;
}

const near = (got: number, want: number, label: string) =>
  assert.ok(Math.abs(got - want) <= 0.006, `${label}: ${got.toFixed(3)} s, want ${want} s`);

test('an end the aligner put early runs on through a faint fading sound, across a short closure', () => {
  // "word" loud 0.2-0.6, a 20 ms closure, then a fricative 40 dB down to 0.75; silence after.
  const pcm = audio(1.2, [
    { from: 0.2, to: 0.6, amplitude: 15000 },
    { from: 0.62, to: 0.75, amplitude: 220 },
  ]);
  const [w] = snapEdgesToSound(pcm, RATE, [{ start: 0.2, end: 0.6 }]);
  near(w!.end, 0.75, 'end');
  near(w!.start, 0.2, 'start');
});

test('an end placed in the silence comes back to the sound; a start in silence moves forward to it', () => {
  const pcm = audio(1.2, [{ from: 0.3, to: 0.7, amplitude: 12000 }]);
  const [w] = snapEdgesToSound(pcm, RATE, [{ start: 0.1, end: 0.9 }]);
  near(w!.start, 0.3, 'start');
  near(w!.end, 0.7, 'end');
});

test('edges between words that run together stay where the aligner put them; a start is never moved back into a pause', () => {
  const pcm = audio(1.5, [{ from: 0.2, to: 1.2, amplitude: 12000 }]);
  const spans = snapEdgesToSound(pcm, RATE, [
    { start: 0.25, end: 0.6 },
    { start: 0.6, end: 0.9 },
    { start: 0.9, end: 1.2 },
  ]);
  near(spans[0]!.start, 0.25, 'first start (inside the sound: not moved back)');
  near(spans[0]!.end, 0.6, 'first end');
  near(spans[1]!.start, 0.6, 'middle start');
  near(spans[1]!.end, 0.9, 'middle end');
  near(spans[2]!.end, 1.2, 'last end');
});

test('an end never runs past the next word nor more than 0.3 s; unplaced words stay null', () => {
  const pcm = audio(2, [{ from: 0.2, to: 1.8, amplitude: 12000 }]);
  const spans = snapEdgesToSound(pcm, RATE, [{ start: 0.2, end: 0.5 }, null, { start: 0.7, end: 1.0 }]);
  assert.equal(spans[1], null);
  assert.ok(spans[0]!.end <= 0.7 + 1e-9, `first end ${spans[0]!.end} stops at the next word`);
  assert.ok(spans[2]!.end <= 1.3 + 0.006, `last end ${spans[2]!.end} moved at most 0.3 s`);
});
