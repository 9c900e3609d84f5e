// The Wyoming audio formats to 16-bit mono: every width, channels averaged, the checks on formats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AudioFormatError, readFormat, toMonoInt16, Stream16k } from '../../src/wyoming/audio.js';

test('every width reads as signed little-endian and lands on the 16-bit scale', () => {
  const v = [-32768, -1000, 0, 12345, 32767];
  const b1 = Buffer.from(v.map((x) => (x >> 8) & 0xff));
  assert.deepEqual(
    [...toMonoInt16(b1, { rate: 16000, width: 1, channels: 1 })],
    v.map((x) => (x >> 8) * 256),
  );
  const b2 = Buffer.alloc(v.length * 2);
  v.forEach((x, i) => b2.writeInt16LE(x, i * 2));
  assert.deepEqual([...toMonoInt16(b2, { rate: 16000, width: 2, channels: 1 })], v);
  const b3 = Buffer.alloc(v.length * 3);
  v.forEach((x, i) => b3.writeIntLE(x * 256 + 17, i * 3, 3));
  assert.deepEqual([...toMonoInt16(b3, { rate: 16000, width: 3, channels: 1 })], v);
  const b4 = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => b4.writeInt32LE(x * 65536 + 300, i * 4));
  assert.deepEqual([...toMonoInt16(b4, { rate: 16000, width: 4, channels: 1 })], v);
});

test('channels are averaged', () => {
  const b = Buffer.alloc(8);
  b.writeInt16LE(1000, 0);
  b.writeInt16LE(3000, 2);
  b.writeInt16LE(-32768, 4);
  b.writeInt16LE(-32768, 6);
  assert.deepEqual([...toMonoInt16(b, { rate: 16000, width: 2, channels: 2 })], [2000, -32768]);
});

test('partial frames and impossible formats are AudioFormatError', () => {
  assert.throws(() => toMonoInt16(Buffer.alloc(3), { rate: 16000, width: 2, channels: 1 }), AudioFormatError);
  assert.throws(() => toMonoInt16(Buffer.alloc(6), { rate: 16000, width: 2, channels: 2 }), AudioFormatError);
  for (const bad of [
    { rate: 16000, width: 0, channels: 1 },
    { rate: 16000, width: 8, channels: 1 },
    { rate: 500, width: 2, channels: 1 },
    { rate: 16000, width: 2, channels: 33 },
    { rate: 16000.5, width: 2, channels: 1 },
  ]) {
    assert.throws(() => readFormat(bad, null), AudioFormatError, JSON.stringify(bad));
  }
  assert.throws(() => readFormat({ rate: 16000 }, null), AudioFormatError);
  assert.deepEqual(readFormat({ rate: 22050 }, { rate: 16000, width: 2, channels: 1 }), { rate: 22050, width: 2, channels: 1 });
});

test('an utterance resampled from 48 kHz chunk by chunk has the length and the tone of its input; a rate change mid-stream keeps the old tail', async (t) => {
  // The resampling thread is unref'd (a server keeps the process alive; here nothing else would).
  const alive = setInterval(() => undefined, 1000);
  t.after(() => clearInterval(alive));
  const u = new Stream16k(16000 * 10);
  const tone = Buffer.alloc(48000 * 2);
  for (let i = 0; i < 48000; i++) tone.writeInt16LE(Math.round(10000 * Math.sin((2 * Math.PI * 440 * i) / 48000)), i * 2);
  // Two half-second chunks: no seam between them.
  const a = await u.push(tone.subarray(0, 48000), { rate: 48000, width: 2, channels: 1 });
  const b = await u.push(tone.subarray(48000), { rate: 48000, width: 2, channels: 1 });
  assert.ok(a && b);
  const tail = await u.finish();
  const out = new Int16Array(a.length + b.length + tail.length);
  out.set(a);
  out.set(b, a.length);
  out.set(tail, a.length + b.length);
  assert.equal(out.length, 16000);
  // 440 Hz at 16 kHz: the samples follow the sine (after the filter's settling at the edges).
  let err = 0;
  for (let i = 200; i < 15800; i++) err = Math.max(err, Math.abs(out[i]! - 10000 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
  assert.ok(err < 300, String(err));
  assert.ok(await new Stream16k(16000).push(tone, { rate: 48000, width: 2, channels: 1 }));
  assert.equal(await new Stream16k(15999).push(tone, { rate: 48000, width: 2, channels: 1 }), null);
  // 48 kHz then 16 kHz: the 48 kHz resampler's tail comes before the 16 kHz samples.
  const v = new Stream16k(16000 * 10);
  const first = await v.push(tone, { rate: 48000, width: 2, channels: 1 });
  const plain = Buffer.alloc(3200);
  const second = await v.push(plain, { rate: 16000, width: 2, channels: 1 });
  assert.ok(first && second);
  assert.equal(first.length + second.length, 16000 + 1600);
  assert.equal((await v.finish()).length, 0);
});
