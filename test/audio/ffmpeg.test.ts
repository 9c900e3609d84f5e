// The one ffmpeg probe that batch decoding and real-time Opus share: it answers from the system
// (Debian's ffmpeg is installed here; a PATH without it answers false), once per process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ffmpegAvailable } from '../../src/audio/ffmpeg.js';
import { opusSupported } from '../../src/stt/live/opus-decoder.js';
import { ROOT } from '../helpers/root.js';

test('ffmpeg is found here, and real-time Opus asks the same probe (one answer per process)', async () => {
  assert.equal(await ffmpegAvailable(), true);
  assert.equal(opusSupported(), ffmpegAvailable(), 'the same probe, not a second one');
  assert.equal(await opusSupported(), true);
});

test('without ffmpeg on the PATH both say no', async () => {
  const script = `const { ffmpegAvailable } = await import('./src/audio/ffmpeg.ts');
const { opusSupported } = await import('./src/stt/live/opus-decoder.ts');
console.log(JSON.stringify([await ffmpegAvailable(), await opusSupported()]));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, PATH: '/nonexistent' },
  });
  assert.deepEqual(JSON.parse(stdout.trim()), [false, false]);
});
