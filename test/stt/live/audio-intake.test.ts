// A live stream's audio intake alone (src/stt/live/audio-intake.ts): frames in the stream's
// encoding in, 16 kHz samples and their received length out, in order; no recognizer, no session.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AudioIntake } from '../../../src/stt/live/audio-intake.js';
import { opusSupported } from '../../../src/stt/live/opus-decoder.js';
import { decodeWav } from '../../../src/audio/wav.js';
import { concatInt16 } from '../../../src/audio/pcm.js';
import { ffmpegConvert, flite } from '../../helpers/speech.js';

function collector(params: { encoding: 'linear16' | 'opus'; sampleRate: number }) {
  const pieces: Array<Int16Array | Promise<Int16Array>> = [];
  let seconds = 0;
  const invalid: string[] = [];
  const intake = new AudioIntake(params, {
    audio: (a, s) => {
      pieces.push(a);
      seconds += s;
    },
    invalid: (m) => invalid.push(m),
  });
  const samples = async () => concatInt16(await Promise.all(pieces));
  return { intake, samples, seconds: () => seconds, invalid };
}

const opened: AudioIntake[] = [];
// The resampling thread and ffmpeg do not keep a process alive by themselves (a server's sockets do).
const alive = setInterval(() => undefined, 1000);
after(() => {
  opened.forEach((i) => i.close());
  clearInterval(alive);
});

test('linear16 at 16 kHz: a sample split across frames (odd frame lengths) arrives whole, in order', async () => {
  const pcm = new Int16Array(1601);
  for (let i = 0; i < pcm.length; i++) pcm[i] = ((i * 7919) % 65536) - 32768;
  const bytes = Buffer.from(pcm.buffer);
  const c = collector({ encoding: 'linear16', sampleRate: 16000 });
  opened.push(c.intake);
  // Frames of 1, 3, 5, ... bytes: every sample boundary is crossed somewhere.
  for (let at = 0, n = 1; at < bytes.length; at += n, n += 2) c.intake.write(bytes.subarray(at, at + n));
  assert.deepEqual(await c.samples(), pcm);
  assert.ok(Math.abs(c.seconds() - pcm.length / 16000) < 1e-9);
  assert.deepEqual(await c.intake.tail(), new Int16Array(0));
});

test('linear16 at 48 kHz: resampled to 16 kHz on the thread; the received length is what was sent', async () => {
  const c = collector({ encoding: 'linear16', sampleRate: 48000 });
  opened.push(c.intake);
  const tone = new Int16Array(48000);
  for (let i = 0; i < tone.length; i++) tone[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 48000));
  const bytes = Buffer.from(tone.buffer);
  for (let at = 0; at < bytes.length; at += 9600) c.intake.write(bytes.subarray(at, at + 9600));
  await c.intake.finish(false);
  const out = await c.samples();
  const tail = await c.intake.tail();
  assert.ok(Math.abs(c.seconds() - 1) < 1e-9);
  assert.ok(Math.abs(out.length + tail.length - 16000) <= 32, `${out.length} + ${tail.length} samples at 16 kHz for 1 s`);
});

test('opus: bytes that are neither Ogg nor WebM are refused once, nothing is emitted', {
  skip: !(await opusSupported()) && 'no ffmpeg',
}, async () => {
  const c = collector({ encoding: 'opus', sampleRate: 16000 });
  opened.push(c.intake);
  c.intake.write(Buffer.from('RIFF....WAVEfmt '));
  c.intake.write(Buffer.from('more bytes'));
  await c.intake.finish(false);
  assert.equal(c.invalid.length, 1);
  assert.match(c.invalid[0]!, /Ogg or WebM/);
  assert.equal((await c.samples()).length, 0);
});

test('opus in Ogg: decoded to 16 kHz in order, the length as decoded', { skip: !(await opusSupported()) && 'no ffmpeg' }, async () => {
  const wav = flite('The meeting starts at nine.');
  const seconds = decodeWav(readFileSync(wav)).channels[0]!.length / 16000;
  const ogg = readFileSync(ffmpegConvert(wav, 'ogg', ['-c:a', 'libopus', '-b:a', '32k']));
  const c = collector({ encoding: 'opus', sampleRate: 16000 });
  opened.push(c.intake);
  for (let at = 0; at < ogg.length; at += 333) c.intake.write(ogg.subarray(at, at + 333));
  await c.intake.finish(false);
  const out = await c.samples();
  assert.deepEqual(c.invalid, []);
  assert.ok(Math.abs(out.length / 16000 - seconds) < 0.1, `${out.length / 16000} s decoded of ${seconds} s`);
  assert.ok(Math.abs(c.seconds() - out.length / 16000) < 1e-6);
});
