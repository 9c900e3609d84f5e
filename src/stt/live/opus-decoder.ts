// Live decoding of a container stream to 16 kHz mono PCM: Opus in Ogg or WebM for encoding=opus,
// and on Deepgram's socket without `encoding` any container it sniffs (Ogg, WebM, WAV, MP3, FLAC:
// Deepgram reads containers itself and tells clients to leave `encoding` out for them; decision
// #43). An ffmpeg process per stream (Debian's ffmpeg, already a dependency of batch decoding), started
// through the node's spawner (src/process/spawner.ts) with its stdin and stdout one socket: the
// decoding runs outside the event loop, and ffmpeg's demuxers cope with pages and clusters split
// anywhere across WebSocket frames, which the WASM decoders in node_modules only do for whole files.

import type { Socket } from 'node:net';
import { ffmpegAvailable } from '../../audio/ffmpeg.js';
import { sharedSpawner, type ProcessSpawner } from '../../process/spawner.js';

export type Container = 'ogg' | 'webm' | 'wav' | 'mp3' | 'flac';

/** The containers encoding=opus accepts (the Opus ones). */
export const OPUS_CONTAINERS: readonly Container[] = ['ogg', 'webm'];
/** Every container sniffed here: what a Deepgram stream without `encoding` may carry. */
export const ALL_CONTAINERS: readonly Container[] = ['ogg', 'webm', 'wav', 'mp3', 'flac'];

/** ffmpeg's demuxer for each container (WebM is Matroska's). */
const DEMUXER: Record<Container, string> = { ogg: 'ogg', webm: 'matroska', wav: 'wav', mp3: 'mp3', flac: 'flac' };

/** Bytes needed to tell every container apart (RIFF....WAVE is the longest signature). */
export const SNIFF_BYTES = 12;

/** Whether Opus can be decoded here: it takes ffmpeg (optional on a server; without it only linear16 is offered). */
export function opusSupported(): Promise<boolean> {
  return ffmpegAvailable();
}

/**
 * The container named by the first bytes of the stream, or null when it is none of them. An MP3
 * without an ID3 tag is recognized by a whole valid MPEG audio frame header (sync, a version,
 * layer, bitrate and rate that exist), so that raw PCM starting with 0xFF bytes is rarely taken
 * for one; when it is, ffmpeg finds no frames and the stream ends as undecodable all the same.
 */
export function sniffContainer(head: Buffer): Container | null {
  if (head.length < 4) return null;
  const tag = head.toString('latin1', 0, 4);
  if (tag === 'OggS') return 'ogg';
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  if (tag === 'fLaC') return 'flac';
  if ((tag === 'RIFF' || tag === 'RF64') && head.length >= 12 && head.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (head.toString('latin1', 0, 3) === 'ID3') return 'mp3';
  if (mpegFrameHeader(head)) return 'mp3';
  return null;
}

function mpegFrameHeader(h: Buffer): boolean {
  const [b0, b1, b2] = [h[0]!, h[1]!, h[2]!];
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return false;
  const version = (b1 >> 3) & 3;
  const layer = (b1 >> 1) & 3;
  const bitrate = b2 >> 4;
  const rate = (b2 >> 2) & 3;
  return version !== 1 && layer !== 0 && bitrate !== 0 && bitrate !== 15 && rate !== 3;
}

export class OpusDecoder {
  private started = false;
  /** The program's stdin and stdout, once the spawner has started it; bytes wait in `queued` until then. */
  private io: Socket | null = null;
  private queued: Buffer[] = [];
  private inputEnded = false;
  private head = Buffer.alloc(0);
  private carry: Buffer | null = null;
  private readonly stop = new AbortController();
  /** Resolves once the program has exited and all its output has been handed on. */
  private done: Promise<void> | null = null;
  failed: string | null = null;

  constructor(
    /** Receives decoded 16 kHz mono PCM in order. */
    private readonly onPcm: (pcm: Int16Array) => void,
    /** Called once when the input cannot be decoded. */
    private readonly onError: (message: string) => void,
    private readonly spawner: ProcessSpawner = sharedSpawner(),
    /** The containers this stream may carry; anything else is undecodable. */
    private readonly accepted: readonly Container[] = OPUS_CONTAINERS,
  ) {}

  write(bytes: Buffer): void {
    if (this.failed) return;
    if (!this.started) {
      // Wait for enough bytes to tell the container apart before starting the decoder.
      this.head = Buffer.concat([this.head, bytes]);
      // RIFF needs 12 bytes to be told from other RIFF files; the other signatures need 4.
      if (this.head.length < 4 || (this.head.length < SNIFF_BYTES && this.head.toString('latin1', 0, 4).startsWith('R'))) return;
      const container = sniffContainer(this.head);
      if (!container || !this.accepted.includes(container))
        return this.fail(
          this.accepted === OPUS_CONTAINERS
            ? 'encoding=opus expects Opus in an Ogg or WebM container (the stream starts with neither).'
            : 'the audio is in no container this server reads (Ogg, WebM, WAV, MP3, FLAC) and no `encoding` was given: raw audio needs `encoding` and `sample_rate`.',
        );
      this.start(container);
      bytes = this.head;
      this.head = Buffer.alloc(0);
    }
    if (this.io) this.io.write(bytes);
    else this.queued.push(bytes);
  }

  private start(container: Container): void {
    this.started = true;
    // +nobuffer drops the packets read while probing: harmless for Ogg and WebM pages, but it loses
    // the first 4 KB of a WAV (measured: 0.26 s at 8 kHz), so the other containers go without it.
    const noBuffer = container === 'ogg' || container === 'webm' ? ['-fflags', '+nobuffer'] : [];
    const args = [
      '-nostdin',
      '-v',
      'error',
      ...noBuffer,
      '-probesize',
      '32',
      '-analyzeduration',
      '0',
      '-f',
      DEMUXER[container],
      '-i',
      'pipe:0',
      '-ac',
      '1',
      '-ar',
      '16000',
      '-f',
      's16le',
      '-flush_packets',
      '1',
      'pipe:1',
    ];
    // -nostdin only stops ffmpeg reading commands from its terminal; pipe:0 is still its input.
    this.done = (async () => {
      let run;
      try {
        run = await this.spawner.pipe('ffmpeg', args, this.stop.signal);
      } catch (err) {
        if (!this.stop.signal.aborted) this.fail(`the Opus decoder could not start: ${(err as Error).message}`);
        return;
      }
      const { io, exit } = run;
      this.io = io;
      io.on('error', () => undefined);
      for (const b of this.queued) io.write(b);
      this.queued = [];
      if (this.inputEnded) io.end();
      const read = (async () => {
        try {
          for await (const d of io as AsyncIterable<Buffer>) if (!this.stop.signal.aborted) this.emit(d);
        } catch {
          // A killed decoder's socket is reset; its exit says why.
        }
      })();
      const [status] = await Promise.all([exit.catch((err: Error) => ({ code: null, signal: null, stderr: err.message })), read]);
      io.destroy();
      if (status.code !== 0 && !this.stop.signal.aborted) {
        this.fail(
          `the ${container} stream could not be decoded: ${status.stderr.trim().split('\n').pop() || `ffmpeg exit ${status.code ?? status.signal}`}`,
        );
      }
    })();
  }

  private emit(d: Buffer): void {
    let buf = this.carry ? Buffer.concat([this.carry, d]) : d;
    this.carry = null;
    if (buf.length % 2) {
      this.carry = buf.subarray(buf.length - 1);
      buf = buf.subarray(0, buf.length - 1);
    }
    if (!buf.length) return;
    const pcm = new Int16Array(buf.length / 2);
    for (let i = 0; i < pcm.length; i++) pcm[i] = buf.readInt16LE(i * 2);
    this.onPcm(pcm);
  }

  private fail(message: string): void {
    if (this.failed) return;
    this.failed = message;
    this.onError(message);
  }

  /** Ends the input and resolves once every decoded sample has been handed to onPcm. */
  async finish(): Promise<void> {
    if (!this.started) return;
    this.inputEnded = true;
    this.io?.end();
    await this.done;
  }

  /** Stops at once (client gone); nothing more is emitted. */
  kill(): void {
    this.failed ??= 'stopped';
    this.stop.abort(new Error('stopped'));
    this.io?.destroy();
  }
}
