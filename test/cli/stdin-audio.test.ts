// Telling a piped audio file from raw PCM by its first bytes (src/cli/stdin-audio.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { containerOf } from '../../src/cli/stdin-audio.js';
import { ffmpegConvert, flite } from '../helpers/speech.js';

test('every container by its signature; raw PCM (even one starting with an MPEG-like sync word) is none', () => {
  const wav = flite('Hello there.');
  const cases: Array<[string, string[], string]> = [
    ['ogg', ['-c:a', 'libopus'], 'ogg'],
    ['webm', ['-c:a', 'libopus'], 'webm'],
    ['flac', [], 'flac'],
    ['mp3', ['-id3v2_version', '0', '-write_xing', '0'], 'mp3'],
    ['m4a', ['-c:a', 'aac'], 'mp4'],
  ];
  assert.equal(containerOf(readFileSync(wav)), 'wav');
  for (const [ext, args, expected] of cases)
    assert.equal(containerOf(readFileSync(ffmpegConvert(wav, ext, args)).subarray(0, 4096)), expected, ext);
  assert.equal(containerOf(readFileSync(wav).subarray(44)), null);
  // 0xFFFB is a plausible sample pair; without a second frame where the first one ends it is PCM.
  const pcm = Buffer.alloc(4096);
  pcm.set([0xff, 0xfb, 0x90, 0x64]);
  assert.equal(containerOf(pcm), null);
  assert.equal(containerOf(Buffer.alloc(0)), null);
  assert.equal(containerOf(Buffer.from('RIFF')), null);
});
