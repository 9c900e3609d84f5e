// Encoders Parla has no library for, run as Debian's ffmpeg: Ogg Opus (libopus) and ADTS AAC
// (ffmpeg's native AAC encoder), the files of OpenAI's `opus` and `aac` speech formats and of
// Deepgram's speak encodings of those names (docs/compatibility.md). PCM streams in and encoded
// bytes stream out as they are made, through one socket (ProcessSpawner.pipe: ffmpeg is started
// by the small helper process, never forked from the service, docs/architecture.md). Each encoder
// is a process doing CPU work beside the worker pool's threads, so at most `concurrent` run at
// once (the pool's thread count), at most `queue` more wait, and beyond that the caller gets
// PoolOverloadedError (503, as a full pool).

import type { Readable } from 'node:stream';
import { Readable as ReadableStream } from 'node:stream';
import type { ExitStatus, ProcessSpawner } from '../process/spawner.js';
import { PoolOverloadedError } from '../domain/overload.js';

export const FFMPEG_FORMATS = ['opus', 'aac'] as const;
export type FfmpegFormat = (typeof FFMPEG_FORMATS)[number];

/** The encoder's output: what it is, as the client should be told. */
export const FFMPEG_CONTENT_TYPES: Record<FfmpegFormat, string> = { opus: 'audio/ogg', aac: 'audio/aac' };

/** The bit rate each format is made at unless the caller asks for another (OpenAI's files). */
export const FFMPEG_DEFAULT_BIT_RATES: Record<FfmpegFormat, number> = { opus: 48000, aac: 64000 };

const OUTPUT_ARGS: Record<FfmpegFormat, string[]> = {
  // Ogg Opus. Pages of at most 100 ms (the muxer's default is 1 s) so audio leaves as it is made.
  opus: ['-c:a', 'libopus', '-application', 'audio', '-page_duration', '100000', '-f', 'ogg'],
  // ADTS: each frame carries its header, so the stream is playable as it arrives (no moov atom).
  aac: ['-c:a', 'aac', '-f', 'adts'],
};

/**
 * The bit rates (bps) ffmpeg really makes for mono `format` at `sampleRate`: libopus refuses more
 * than 256 kb/s a channel; ffmpeg's AAC encoder silently clamps to 6144 bits a frame of 1024
 * samples (132300 bps at 22050 Hz), so above that the file would not be what was asked for.
 */
export function ffmpegBitRateRange(format: FfmpegFormat, sampleRate: number): { min: number; max: number } {
  return format === 'opus' ? { min: 500, max: 256_000 } : { min: 4000, max: Math.floor((6144 * sampleRate) / 1024) };
}

/** ffmpeg failed (or could not be started): the edges answer 500 ENGINE_ERROR (src/faults/translate.ts). */
export class EncoderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EncoderError';
  }
}

export function ffmpegArgs(format: FfmpegFormat, sampleRate: number, bitRate = FFMPEG_DEFAULT_BIT_RATES[format]): string[] {
  const { min, max } = ffmpegBitRateRange(format, sampleRate);
  if (!Number.isInteger(bitRate) || bitRate < min || bitRate > max)
    throw new RangeError(`bit rate ${bitRate} is outside ${min}-${max} for ${format} at ${sampleRate} Hz`);
  // Raw PCM has nothing to probe: without a tiny probe size ffmpeg reads ~2 s of input before
  // its first output, and a short sentence would wait for the next.
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-probesize',
    '32',
    '-analyzeduration',
    '0',
    '-f',
    's16le',
    '-ar',
    String(sampleRate),
    '-ac',
    '1',
    '-i',
    'pipe:0',
    ...OUTPUT_ARGS[format],
    '-b:a',
    String(bitRate),
    '-flush_packets',
    '1',
    'pipe:1',
  ];
}

/** A place for one encoder process (FfmpegEncoders.reserve). */
export interface EncoderSlot {
  /**
   * Starts the encoder on `pcm` (s16le mono at `sampleRate`) and resolves with its output once the
   * first bytes are out (so a failure to start is still the caller's error); rejects with
   * EncoderError. The slot is freed when the encoder exits. A failure of `pcm` or `signal` kills
   * the encoder and fails the output: a cut stream is never ended as if it were whole.
   * `bitRate` (bps, within ffmpegBitRateRange): the format's default when left out.
   */
  encode(pcm: Readable, sampleRate: number, signal: AbortSignal, bitRate?: number): Promise<Readable>;
  /** Frees the place when encode() is not called after all; idempotent. */
  release(): void;
}

export interface EncoderLimits {
  concurrent: number;
  queue: number;
}

export class FfmpegEncoders {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly probes = new Map<FfmpegFormat, Promise<boolean>>();

  constructor(
    private readonly spawner: ProcessSpawner,
    private readonly limits: EncoderLimits,
    private readonly binary = 'ffmpeg',
  ) {}

  /**
   * Whether ffmpeg here really encodes `format`: one encode of a few ms of silence per format,
   * once per process (a missing ffmpeg, or one built without libopus, is false).
   */
  supports(format: FfmpegFormat): Promise<boolean> {
    let probe = this.probes.get(format);
    if (!probe) {
      const args = [
        '-hide_banner',
        '-loglevel',
        'error',
        '-nostdin',
        '-f',
        'lavfi',
        '-i',
        'anullsrc=r=24000:cl=mono',
        '-t',
        '0.05',
        ...OUTPUT_ARGS[format],
        '-b:a',
        String(FFMPEG_DEFAULT_BIT_RATES[format]),
        '-y',
        '/dev/null',
      ];
      probe = this.spawner.run(this.binary, args, AbortSignal.timeout(10_000)).then(
        (s) => s.code === 0,
        () => false,
      );
      this.probes.set(format, probe);
    }
    return probe;
  }

  /** Waits for a place (or throws PoolOverloadedError when `queue` are waiting already). */
  async reserve(format: FfmpegFormat, signal: AbortSignal): Promise<EncoderSlot> {
    if (this.running >= this.limits.concurrent) {
      if (this.waiting.length >= this.limits.queue)
        throw new PoolOverloadedError(1, { encoders_running: this.running, encoders_waiting: this.waiting.length });
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.waiting.indexOf(turn);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal.reason ?? new Error('aborted'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(turn);
      });
    } else {
      this.running++;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The place goes straight to the next in line (running stays counted).
      if (next) next();
      else this.running--;
    };
    return { encode: (pcm, rate, sig, bitRate) => this.encode(format, pcm, rate, sig, release, bitRate), release };
  }

  private async encode(
    format: FfmpegFormat,
    pcm: Readable,
    sampleRate: number,
    signal: AbortSignal,
    release: () => void,
    bitRate?: number,
  ): Promise<Readable> {
    let args: string[];
    try {
      args = ffmpegArgs(format, sampleRate, bitRate);
    } catch (err) {
      release();
      throw err;
    }
    // Killed when the client goes away, and when the PCM fails (the synthesis broke off).
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const pcmFailed = (err: Error) => stop.abort(err);
    pcm.once('error', pcmFailed);
    // The synthesis destroys its PCM with the abort reason when the client leaves, possibly after
    // ffmpeg has exited and pcmFailed is gone: an 'error' with no listener would end the process.
    pcm.on('error', () => undefined);
    let exit: Promise<ExitStatus>;
    let io: import('node:net').Socket;
    try {
      ({ io, exit } = await this.spawner.pipe(this.binary, args, stop.signal));
    } catch (err) {
      signal.removeEventListener('abort', onAbort);
      pcm.off('error', pcmFailed);
      release();
      throw stop.signal.aborted
        ? err
        : new EncoderError(`ffmpeg (${format}) could not be started: ${(err as Error).message}`, { cause: err });
    }
    const status = exit.then(
      (s) => {
        if (s.code === 0) return;
        const why = stop.signal.aborted ? 'stopped' : `exited with ${s.code ?? s.signal}: ${s.stderr.trim().slice(0, 300)}`;
        throw new EncoderError(`ffmpeg (${format}) ${why}`);
      },
      (err: unknown) => {
        throw new EncoderError(`ffmpeg (${format}) failed: ${(err as Error).message}`, { cause: err });
      },
    );
    status.catch(() => undefined);
    void exit
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
        pcm.off('error', pcmFailed);
        release();
      })
      .catch(() => undefined);
    // PCM in, with backpressure; its end is the encoder's end of input.
    pcm.pipe(io);
    io.on('error', () => undefined);
    const chunks = io[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const nextChunk = async (): Promise<IteratorResult<Buffer>> => {
      try {
        return await chunks.next();
      } catch (err) {
        await status;
        throw new EncoderError(`ffmpeg (${format}) output failed: ${(err as Error).message}`, { cause: err });
      }
    };
    const first = await nextChunk();
    if (first.done) await status;
    async function* output(): AsyncGenerator<Buffer> {
      try {
        if (!first.done) yield first.value;
        for (let c = await nextChunk(); !c.done; c = await nextChunk()) yield c.value;
        // The socket's end is only an end if ffmpeg finished well.
        await status;
      } finally {
        // The reader went away early: nothing more to encode for.
        if (io.readable) stop.abort(new Error('output abandoned'));
      }
    }
    return ReadableStream.from(output(), { objectMode: false });
  }
}

/**
 * A whole clip of PCM (s16le mono at `sampleRate`) through `slot`, collected: for an answer sent
 * with its length once it is all made (the Deepgram dialect's POST /v1/speak).
 */
export async function encodeWhole(
  slot: EncoderSlot,
  pcm: Uint8Array,
  sampleRate: number,
  signal: AbortSignal,
  bitRate?: number,
): Promise<Buffer> {
  const out = await slot.encode(
    ReadableStream.from([Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength)]),
    sampleRate,
    signal,
    bitRate,
  );
  const chunks: Buffer[] = [];
  for await (const c of out) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
