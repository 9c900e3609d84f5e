// Declared lengths read before decoding (decision #42): WAV and FLAC headers here, ffprobe for the
// other containers; a header that lies about more bytes than there are is bounded by the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { declaredSeconds, declaredSecondsOfFile, flacDeclaredSeconds, wavDeclaredSeconds } from '../../src/audio/declared-duration.js';
import { wavHeader } from '../../src/audio/wav.js';

const dir = mkdtempSync(path.join(tmpdir(), 'parla-declared-test-'));
const make = (name: string, args: string[]) => {
  const file = path.join(dir, name);
  execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '75', ...args, file]);
  return file;
};

test('WAV: data size over byte rate, bounded by the bytes present; a streamed WAV runs to the end', () => {
  const pcm = Buffer.alloc(16000 * 2 * 3);
  assert.equal(wavDeclaredSeconds(Buffer.concat([wavHeader(16000, pcm.length), pcm])), 3);
  // Declares an hour, carries 3 s.
  assert.equal(wavDeclaredSeconds(Buffer.concat([wavHeader(16000, 16000 * 2 * 3600), pcm])), 3);
  // The whole file's size stands in for the bytes present when only its head was read.
  assert.equal(wavDeclaredSeconds(Buffer.concat([wavHeader(16000, 16000 * 2 * 3600), pcm]), 44 + 16000 * 2 * 3600), 3600);
  const streamed = wavHeader(8000, 0xffffffff);
  assert.equal(wavDeclaredSeconds(Buffer.concat([streamed, Buffer.alloc(8000 * 2 * 5)])), 5);
  assert.equal(wavDeclaredSeconds(Buffer.from('RIFF\0\0\0\0WAVEjunk')), null);
  assert.equal(wavDeclaredSeconds(Buffer.from('not a wav file at all')), null);
});

test('FLAC: STREAMINFO total samples over rate; unknown (0) is null', () => {
  const file = path.join(dir, 'hour.flac');
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', file, 'trim', '0', '3600']);
  const bytes = readFileSync(file);
  assert.equal(flacDeclaredSeconds(bytes), 3600);
  const unknown = Buffer.from(bytes);
  unknown.fill(0, 8 + 13, 8 + 18);
  unknown[8 + 13] = bytes[8 + 13]! & 0xf0;
  assert.equal(flacDeclaredSeconds(unknown), null);
  assert.equal(flacDeclaredSeconds(Buffer.from('fLaC')), null);
});

test('MP3, Ogg Vorbis, Ogg Opus, M4A, WebM: ffprobe reads the container', async () => {
  const cases: Array<[string, string[]]> = [
    ['a.mp3', ['-c:a', 'libmp3lame', '-b:a', '16k']],
    ['a.ogg', ['-c:a', 'libvorbis']],
    ['a.opus', ['-c:a', 'libopus', '-f', 'ogg']],
    ['a.m4a', ['-c:a', 'aac', '-b:a', '16k']],
    ['a.webm', ['-c:a', 'libopus']],
  ];
  for (const [name, args] of cases) {
    const file = make(name, args);
    const fromBytes = await declaredSeconds(readFileSync(file));
    assert.ok(fromBytes !== null && Math.abs(fromBytes - 75) < 1, `${name}: ${fromBytes}`);
    const fromFile = await declaredSecondsOfFile(file);
    assert.ok(fromFile !== null && Math.abs(fromFile - 75) < 1, `${name} (file): ${fromFile}`);
  }
  assert.equal(await declaredSeconds(Buffer.alloc(1000, 0x55)), null);
});
