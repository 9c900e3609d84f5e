// Live decoding of Opus in an Ogg or WebM container to 16 kHz mono PCM, for encoding=opus.
// An ffmpeg process per stream (Debian's ffmpeg, already a dependency of batch decoding): the
// decoding runs outside the event loop, and ffmpeg's demuxers cope with pages and clusters split
// anywhere across WebSocket frames, which the WASM decoders in node_modules only do for whole files.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ffmpegAvailable } from '../audio/ffmpeg.js';

export type Container = 'ogg' | 'webm';

/** Whether Opus can be decoded here: it takes ffmpeg (optional on a server; without it only linear16 is offered). */
export function opusSupported(): Promise<boolean> {
  return ffmpegAvailable();
}

/** The container named by the first bytes of the stream, or null when it is neither. */
export function sniffContainer(head: Buffer): Container | null {
  if (head.length >= 4 && head.toString('latin1', 0, 4) === 'OggS') return 'ogg';
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  return null;
}

export class OpusDecoder {
  private proc: ChildProcessByStdio<Writable, Readable, Readable> | null = null;
  private head = Buffer.alloc(0);
  private carry: Buffer | null = null;
  private stderr = '';
  private exited: Promise<number | null> | null = null;
  failed: string | null = null;

  constructor(
    /** Receives decoded 16 kHz mono PCM in order. */
    private readonly onPcm: (pcm: Int16Array) => void,
    /** Called once when the input cannot be decoded. */
    private readonly onError: (message: string) => void,
  ) {}

  write(bytes: Buffer): void {
    if (this.failed) return;
    if (!this.proc) {
      // Wait for enough bytes to tell the container apart before starting the decoder.
      this.head = Buffer.concat([this.head, bytes]);
      if (this.head.length < 4) return;
      const container = sniffContainer(this.head);
      if (!container) return this.fail('encoding=opus expects Opus in an Ogg or WebM container (the stream starts with neither).');
      this.start(container);
      bytes = this.head;
      this.head = Buffer.alloc(0);
    }
    this.proc!.stdin.write(bytes);
  }

  private start(container: Container): void {
    const proc = spawn(
      'ffmpeg',
      ['-nostdin', '-v', 'error', '-fflags', '+nobuffer', '-probesize', '32', '-analyzeduration', '0', '-f', container === 'ogg' ? 'ogg' : 'matroska', '-i', 'pipe:0', '-ac', '1', '-ar', '16000', '-f', 's16le', '-flush_packets', '1', 'pipe:1'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.proc = proc;
    proc.stdin.on('error', () => undefined);
    proc.stdout.on('data', (d: Buffer) => this.emit(d));
    proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()).length > 4000 && (this.stderr = this.stderr.slice(-2000)));
    this.exited = new Promise((resolve) => {
      proc.on('error', (err) => {
        this.fail(`the Opus decoder could not start: ${err.message}`);
        resolve(null);
      });
      proc.on('close', (code) => {
        if (code !== 0 && code !== null) this.fail(`the Opus stream could not be decoded: ${this.stderr.trim().split('\n').pop() ?? `ffmpeg exit ${code}`}`);
        resolve(code);
      });
    });
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
    if (!this.proc) return;
    this.proc.stdin.end();
    await this.exited;
  }

  /** Stops at once (client gone); nothing more is emitted. */
  kill(): void {
    this.failed ??= 'stopped';
    this.proc?.stdout.removeAllListeners('data');
    this.proc?.kill('SIGKILL');
  }
}
