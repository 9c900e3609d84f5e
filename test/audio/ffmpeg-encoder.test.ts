// FfmpegEncoders (src/audio/ffmpeg-encoder.ts) with Debian's ffmpeg, started through the spawner
// helper: PCM in, Ogg Opus / ADTS AAC out as it is made (checked with ffprobe), the bound on
// concurrent encoders, a requested bit rate (and one ffmpeg would not honour refused), a client abort and a failed input killing the process, and a failing or
// missing program reported as EncoderError.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProcessSpawner } from '../../src/process/spawner.js';
import { EncoderError, encodeWhole, ffmpegBitRateRange, FfmpegEncoders } from '../../src/audio/ffmpeg-encoder.js';
import { PoolOverloadedError } from '../../src/domain/overload.js';

const spawner = new ProcessSpawner();
after(() => spawner.close());

/** `seconds` of a 440 Hz tone, s16le mono at 24 kHz. */
function tone(seconds: number): Buffer {
  const pcm = new Int16Array(Math.round(24000 * seconds));
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000));
  return Buffer.from(pcm.buffer);
}

function probe(file: Buffer): { container: string; codec: string; seconds: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'enc-probe-'));
  try {
    const f = path.join(dir, 'a');
    writeFileSync(f, file);
    const out = JSON.parse(
      execFileSync(
        'ffprobe',
        [
          '-v',
          'error',
          '-show_entries',
          'format=format_name:stream=codec_name,time_base',
          '-show_entries',
          'packet=duration',
          '-of',
          'json',
          f,
        ],
        { encoding: 'utf8' },
      ),
    );
    const [num, den] = String(out.streams[0].time_base).split('/').map(Number) as [number, number];
    const ticks = (out.packets as Array<{ duration?: number }>).reduce((a, p) => a + Number(p.duration ?? 0), 0);
    return { container: out.format.format_name, codec: out.streams[0].codec_name, seconds: (ticks * num) / den };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function collect(r: Readable): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(Buffer.from(c as Uint8Array));
  return parts;
}

/** ffmpeg processes started by this test process's spawner helpers. */
function ffmpegChildren(): string[] {
  const lines = (r: { stdout: string }) => r.stdout.split('\n').filter(Boolean);
  const helpers = lines(spawnSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' }));
  if (helpers.length === 0) return [];
  return lines(spawnSync('pgrep', ['-P', helpers.join(','), '-x', 'ffmpeg'], { encoding: 'utf8' }));
}

const never = new AbortController().signal;

test('opus and aac: real Ogg Opus and ADTS AAC of the input length, out in pieces while PCM comes in', async () => {
  const encoders = new FfmpegEncoders(spawner, { concurrent: 2, queue: 2 });
  for (const [format, container, codec] of [
    ['opus', 'ogg', 'opus'],
    ['aac', 'aac', 'aac'],
  ] as const) {
    assert.equal(await encoders.supports(format), true);
    // The PCM arrives a second at a time; output must come before the input has ended.
    const pcm = new PassThrough();
    const slot = await encoders.reserve(format, never);
    pcm.write(tone(1));
    const out = await slot.encode(pcm, 24000, never);
    const parts: Buffer[] = [];
    out.on('data', (c: Buffer) => parts.push(c));
    for (let i = 0; i < 2; i++) {
      await sleep(300);
      pcm.write(tone(1));
    }
    const beforeEnd = parts.length;
    pcm.end();
    await new Promise((resolve, reject) => out.on('end', resolve).on('error', reject));
    assert.ok(beforeEnd > 0, `${format}: nothing out before the input ended`);
    const p = probe(Buffer.concat(parts));
    assert.equal(p.container, container);
    assert.equal(p.codec, codec);
    assert.ok(Math.abs(p.seconds - 3) < 0.1, `${format}: ${p.seconds} s`);
  }
});

test('bit rate: the rate asked for changes the file size accordingly; one outside what ffmpeg makes is refused and frees the place', async () => {
  const encoders = new FfmpegEncoders(spawner, { concurrent: 1, queue: 0 });
  // 2 s of a tone with a sweep, so the encoders have something to spend bits on.
  const pcm = new Int16Array(48000);
  for (let i = 0; i < pcm.length; i++)
    pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * (300 + i / 40) * i) / 24000) + 2000 * Math.sin(i * 1.7));
  const size = async (format: 'opus' | 'aac', bitRate: number) =>
    (await encodeWhole(await encoders.reserve(format, never), new Uint8Array(pcm.buffer), 24000, never, bitRate)).length * 4;
  for (const [format, low, high] of [
    ['opus', 12000, 96000],
    ['aac', 16000, 96000],
  ] as const) {
    const small = await size(format, low);
    const big = await size(format, high);
    // bits a second for 2 s; the container's overhead and the encoder's rate control allow slack.
    assert.ok(small > low * 0.5 && small < low * 1.8, `${format} ${low}: ${small} bps`);
    assert.ok(big > high * 0.5 && big < high * 1.5, `${format} ${high}: ${big} bps`);
  }
  assert.deepEqual(ffmpegBitRateRange('aac', 22050), { min: 4000, max: 132300 });
  for (const [format, bitRate] of [
    ['opus', 300_000],
    ['aac', 150_000],
    ['opus', 1.5],
  ] as const) {
    await assert.rejects((await encoders.reserve(format, never)).encode(Readable.from([tone(0.1)]), 24000, never, bitRate), RangeError);
  }
  // The refused encodes gave their place back (concurrent 1, queue 0: a leak would be PoolOverloadedError).
  (await encoders.reserve('opus', never)).release();
});

test('concurrency: at most `concurrent` run, `queue` wait in line, the next is refused with PoolOverloadedError', async () => {
  const encoders = new FfmpegEncoders(spawner, { concurrent: 1, queue: 1 });
  const first = await encoders.reserve('aac', never);
  let secondIn = false;
  const second = encoders.reserve('aac', never).then((s) => ((secondIn = true), s));
  await assert.rejects(encoders.reserve('aac', never), PoolOverloadedError);
  await sleep(50);
  assert.equal(secondIn, false);
  // The first encoder's exit frees its place for the one waiting.
  await collect(await first.encode(Readable.from([tone(0.2)]), 24000, never));
  const s2 = await second;
  await collect(await s2.encode(Readable.from([tone(0.2)]), 24000, never));
  // A waiter that gives up leaves the line.
  const third = await encoders.reserve('aac', never);
  const ctl = new AbortController();
  const gaveUp = encoders.reserve('aac', ctl.signal);
  ctl.abort(new Error('client left'));
  await assert.rejects(gaveUp, /client left/);
  third.release();
  (await encoders.reserve('aac', never)).release();
});

test('an abort, and a failed input, kill the encoder and fail its output', async () => {
  const encoders = new FfmpegEncoders(spawner, { concurrent: 2, queue: 0 });
  for (const how of ['abort', 'input'] as const) {
    const pcm = new PassThrough();
    pcm.write(tone(1));
    const ctl = new AbortController();
    const out = await (await encoders.reserve('opus', never)).encode(pcm, 24000, ctl.signal);
    assert.equal(ffmpegChildren().length, 1);
    const ended = collect(out);
    if (how === 'abort') ctl.abort(new Error('client went away'));
    else pcm.destroy(new Error('synthesis failed'));
    await assert.rejects(ended);
    for (let i = 0; i < 50 && ffmpegChildren().length > 0; i++) await sleep(20);
    assert.deepEqual(ffmpegChildren(), [], how);
  }
  // Both places are free again.
  (await encoders.reserve('opus', never)).release();
  (await encoders.reserve('opus', never)).release();
});

test('a program that fails, or is not there, is EncoderError; supports() is false for a missing ffmpeg', async () => {
  const failing = new FfmpegEncoders(spawner, { concurrent: 1, queue: 0 }, 'false');
  await assert.rejects(
    (await failing.reserve('opus', never)).encode(Readable.from([tone(0.1)]), 24000, never),
    (err: unknown) => err instanceof EncoderError && /exited with 1/.test(err.message),
  );
  const missing = new FfmpegEncoders(spawner, { concurrent: 1, queue: 0 }, '/nonexistent/ffmpeg');
  assert.equal(await missing.supports('aac'), false);
  await assert.rejects((await missing.reserve('aac', never)).encode(Readable.from([tone(0.1)]), 24000, never), EncoderError);
  // Its place was freed by the failure.
  (await missing.reserve('aac', never)).release();
});
