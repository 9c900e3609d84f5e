// The Silero VAD (sherpa-onnx-node running the v5 model from @ricky0123/vad-web): speech found in
// a spoken sentence where it is, none in generated white noise, pink noise and clicks; and the same
// decisions through its thread as in-process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { flite, padded } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { SileroVad, sileroModelPath } from '../../src/audio/silero-vad.js';
import { ThreadSileroVad } from '../../src/audio/silero-thread.js';
import { vadKind } from '../../src/audio/live-vad.js';

const model = sileroModelPath();

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

function white(seconds: number, amp: number): Float32Array {
  const r = lcg(1);
  return Float32Array.from({ length: seconds * 16000 }, () => r() * amp);
}

/** Paul Kellet's pink-noise filter over white noise. */
function pink(seconds: number, amp: number): Float32Array {
  const r = lcg(2);
  let b0 = 0,
    b1 = 0,
    b2 = 0;
  return Float32Array.from({ length: seconds * 16000 }, () => {
    const w = r();
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    return ((b0 + b1 + b2 + w * 0.1848) / 4) * amp;
  });
}

/** Keyboard-like clicks: short decaying bursts at irregular intervals. */
function clicks(seconds: number): Float32Array {
  const r = lcg(3);
  const out = new Float32Array(seconds * 16000);
  for (let at = 800; at < out.length - 400; at += 1600 + Math.floor((r() + 1) * 2400)) {
    for (let i = 0; i < 240; i++) out[at + i] = r() * 0.6 * Math.exp(-i / 40);
  }
  return out;
}

test('the model file is installed and Silero serves by default', async () => {
  assert.ok(model, 'silero_vad_v5.onnx from @ricky0123/vad-web');
  assert.equal((await vadKind({})).kind, 'silero');
});

test('Silero finds the speech in a sentence padded with silence, and only there', () => {
  const wav = decodeWav(readFileSync(padded(flite('Good morning, the meeting starts at nine.'), 1, 1)));
  assert.equal(wav.sampleRate, 16000);
  const x = wav.channels[0]!;
  const frames = SileroVad.create(model!).process(x);
  // A frame is told once the 32 ms window holding its end is done.
  assert.equal(frames.length, Math.floor((Math.floor(x.length / 512) * 512) / 320));
  const speech = frames.filter(Boolean).length;
  const speechSeconds = x.length / 16000 - 2;
  assert.ok(speech * 0.02 > speechSeconds * 0.6, `speech frames ${speech} for ${speechSeconds.toFixed(2)} s of speech`);
  // The padding is 1 s of silence each side (Silero holds speech a little past its end).
  assert.ok(!frames.slice(0, 45).some(Boolean), 'no speech in the leading silence');
  assert.ok(!frames.slice(-25).some(Boolean), 'no speech in the last 0.5 s of silence');
});

for (const [name, noise] of [
  ['white noise', () => white(20, 0.3)],
  ['pink noise', () => pink(20, 0.5)],
  ['clicks', () => clicks(20)],
] as const) {
  test(`Silero calls none of 20 s of ${name} speech`, () => {
    const frames = SileroVad.create(model!).process(noise());
    assert.equal(frames.length, 1000);
    assert.equal(frames.filter(Boolean).length, 0);
  });
}

test('the thread gives the same frames as in-process, chunk by chunk, in order', async () => {
  const wav = decodeWav(readFileSync(padded(flite('Please bring the quarterly report.'), 0.5, 0.5)));
  const x = wav.channels[0]!;
  const direct = SileroVad.create(model!).process(x);
  const pcm = float32ToInt16(x);
  const v = new ThreadSileroVad(model!);
  const parts = await Promise.all(
    Array.from({ length: Math.ceil(pcm.length / 1000) }, (_, i) => v.process(pcm.slice(i * 1000, (i + 1) * 1000))),
  );
  v.free();
  const threaded = parts.flat();
  assert.equal(threaded.length, direct.length);
  // int16 quantization may flip a frame at a boundary; nearly all agree.
  const differ = threaded.filter((b, i) => b !== direct[i]).length;
  assert.ok(differ <= 2, `${differ} frames differ`);
  assert.ok(threaded.some(Boolean));
});
