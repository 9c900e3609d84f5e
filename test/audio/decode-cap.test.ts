// Decision #42 (issue 30): the decode of an upload stops the moment it passes its cap, for every
// container decoded piece by piece (FLAC, MP3, Ogg Vorbis, Ogg Opus, WebM), not after the whole file:
// a 60 s file capped at 5 s reports a length well under 60 s, and below the cap it decodes whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AudioTooLongError, decodeToMono16k } from '../../src/audio/decode.js';

const dir = mkdtempSync(path.join(tmpdir(), 'parla-cap-'));
const files: Array<[string, string[]]> = [
  ['flac', ['-c:a', 'flac']],
  ['mp3', ['-c:a', 'libmp3lame', '-b:a', '128k']],
  ['ogg', ['-c:a', 'libvorbis']],
  ['opus', ['-c:a', 'libopus', '-b:a', '64k']],
];

for (const [ext, codec] of files) {
  test(`${ext}: 60 s capped at 5 s stops early (AudioTooLongError well under 60 s); capped at 90 s decodes whole`, async () => {
    const file = path.join(dir, `noise.${ext}`);
    // Noise, not a tone: every piece carries real coded audio, nothing compresses to nothing.
    execFileSync('ffmpeg', [
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'anoisesrc=d=60:c=pink:a=0.3:r=44100',
      '-ac',
      '2',
      ...codec,
      file,
    ]);
    const bytes = readFileSync(file);
    await assert.rejects(
      decodeToMono16k(bytes, { allowFfmpeg: false, maxSeconds: 5 }),
      (err: unknown) => err instanceof AudioTooLongError && err.seconds > 5 && err.seconds < 40,
    );
    const pcm = await decodeToMono16k(bytes, { allowFfmpeg: false, maxSeconds: 90 });
    assert.ok(Math.abs(pcm.length / 16000 - 60) < 0.2, `${pcm.length / 16000} s`);
  });
}

test.after(() => rmSync(dir, { recursive: true, force: true }));
