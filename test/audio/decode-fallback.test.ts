// The ffmpeg fallback of batch decoding (src/audio/decode.ts), started through the spawner like
// every program the service starts: a container the WASM decoders refuse (Sun .au) is decoded by
// it, and bytes nothing can read are an AudioDecodeError with ffmpeg's reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AudioDecodeError, decodeToMono16k } from '../../src/audio/decode.js';
import { ffmpegAvailable } from '../../src/audio/ffmpeg.js';

const dir = mkdtempSync(path.join(tmpdir(), 'parla-fallback-'));

test('a Sun .au file (refused by the WASM decoders) is decoded by the ffmpeg fallback', {
  skip: !(await ffmpegAvailable()) && 'no ffmpeg',
}, async () => {
  const file = path.join(dir, 'tone.au');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=22050:duration=1.5', file]);
  const bytes = readFileSync(file);
  await assert.rejects(decodeToMono16k(bytes, { allowFfmpeg: false }), 'the libraries alone refuse it');
  const pcm = await decodeToMono16k(bytes);
  assert.ok(Math.abs(pcm.length - 24000) <= 160, `${pcm.length} samples for 1.5 s at 16 kHz`);
  assert.ok(
    pcm.some((s) => Math.abs(s) > 1000),
    'the tone is there',
  );
});

test('bytes nothing can decode: AudioDecodeError', { skip: !(await ffmpegAvailable()) && 'no ffmpeg' }, async () => {
  const junk = Buffer.alloc(5000, 0x5a);
  await assert.rejects(decodeToMono16k(junk), (err: unknown) => err instanceof AudioDecodeError);
});
