// G.711 companding (src/audio/g711.ts) against the recommendation's fixed points and against
// ffmpeg's own pcm_mulaw / pcm_alaw encoders over every 16-bit input: the same code for nearly
// every sample, and where the two round a boundary differently, the neighbouring level.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { compand, compandBytes } from '../../src/audio/g711.js';

const every = new Int16Array(65536).map((_, i) => i - 32768);

test('fixed points: silence, full scale and the sign bit', () => {
  const mu = compand(Int16Array.from([0, 32767, -32768, -1]), 'mulaw');
  assert.deepEqual([...mu], [0xff, 0x80, 0x00, 0x7f]);
  const a = compand(Int16Array.from([0, 32767, -32768]), 'alaw');
  assert.deepEqual([...a], [0xd5, 0xaa, 0x2a]);
});

test('compandBytes reads s16le bytes as compand reads samples', () => {
  const bytes = Buffer.from(every.buffer);
  for (const law of ['mulaw', 'alaw'] as const) assert.deepEqual(compandBytes(bytes, law), compand(every, law));
});

test("every 16-bit input: ffmpeg's encoder agrees on 98% of codes, and decodes ours within one level elsewhere", () => {
  const pcm = Buffer.from(every.buffer);
  for (const law of ['mulaw', 'alaw'] as const) {
    const theirs = execFileSync('ffmpeg', ['-v', 'error', '-f', 's16le', '-ar', '8000', '-ac', '1', '-i', '-', '-f', law, '-'], {
      input: pcm,
      maxBuffer: 1 << 24,
    });
    const ours = compand(every, law);
    const decode = (codes: Buffer) => {
      const out = execFileSync('ffmpeg', ['-v', 'error', '-f', law, '-ar', '8000', '-ac', '1', '-i', '-', '-f', 's16le', '-'], {
        input: codes,
        maxBuffer: 1 << 24,
      });
      return new Int16Array(out.buffer, out.byteOffset, out.length >> 1);
    };
    const a = decode(ours);
    const b = decode(theirs);
    let same = 0;
    for (let i = 0; i < every.length; i++) {
      if (ours[i] === theirs[i]) same++;
      // One quantization level is at most 1/8 of the magnitude (the logarithmic segments).
      else assert.ok(Math.abs(a[i]! - b[i]!) <= Math.max(32, Math.abs(every[i]!) / 8), `${law} ${every[i]}: ${a[i]} vs ${b[i]}`);
    }
    assert.ok(same / every.length > 0.98, `${law}: ${same}`);
  }
});
