// Wyoming's wire format, both ways: a JSON header line (type, optional data, data_length,
// payload_length), then data_length bytes of JSON merged into data, then payload_length bytes of
// binary payload. Written here because no maintained npm package speaks Wyoming. The reader is a
// state machine over the bytes as they arrive: each byte is looked at once (the newline search
// resumes where it stopped), every length is capped before anything is buffered, and a broken
// frame is a FrameError, after which the connection cannot be trusted to be in step any more.

export interface WyomingEvent {
  type: string;
  data: Record<string, unknown>;
  payload: Buffer | null;
}

export interface FrameLimits {
  /** Longest header line, bytes (without the newline). */
  maxHeaderBytes: number;
  /** Largest data_length. */
  maxDataBytes: number;
  /** Largest payload_length. */
  maxPayloadBytes: number;
}

export const DEFAULT_FRAME_LIMITS: FrameLimits = {
  // A synthesize event may carry its whole text in the header's data: 50,000 characters of
  // UTF-8 with JSON escapes stay well under 1 MiB.
  maxHeaderBytes: 1024 * 1024,
  maxDataBytes: 1024 * 1024,
  // One audio chunk: a second of 8-channel 32-bit audio at 48 kHz is 1.5 MiB.
  maxPayloadBytes: 2 * 1024 * 1024,
};

export class FrameError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

const TYPE_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function length(header: Record<string, unknown>, field: string, max: number): number {
  const v = header[field];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new FrameError('invalid_frame', `${field} must be a whole number of bytes.`);
  if (v > max) throw new FrameError('frame_too_large', `${field} ${v} is over this server's limit of ${max} bytes.`);
  return v;
}

/** Reads events from a byte stream; push() every chunk as it arrives. */
export class EventReader {
  private parts: Buffer[] = [];
  private buffered = 0;
  /** Bytes of `parts` already searched for a newline (header state), and where that search is. */
  private scanned = 0;
  private scanPart = 0;
  /** Bytes in parts before parts[scanPart]. */
  private scanBase = 0;
  private state: 'header' | 'data' | 'payload' = 'header';
  private pending: { type: string; data: Record<string, unknown>; dataLength: number; payloadLength: number; extra: Buffer | null } | null =
    null;
  /** The error that broke the stream; set by push(), which still returns the events before it. */
  failure: FrameError | null = null;

  constructor(private readonly limits: FrameLimits = DEFAULT_FRAME_LIMITS) {}

  /** Bytes held waiting for the rest of a frame. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /** True while part of a frame has been received (a connection closing now cut an event short). */
  get midFrame(): boolean {
    return this.buffered > 0 || this.state !== 'header';
  }

  /**
   * The complete events in `chunk` (with what came before). A broken frame sets `failure` and the
   * events before it are still returned; pushing more after that throws.
   */
  push(chunk: Buffer): WyomingEvent[] {
    if (this.failure) throw new FrameError('invalid_frame', 'The stream is out of step after an earlier error.');
    this.parts.push(chunk);
    this.buffered += chunk.length;
    const events: WyomingEvent[] = [];
    try {
      for (;;) {
        const ev = this.next();
        if (ev === undefined) break;
        if (ev !== null) events.push(ev);
      }
    } catch (err) {
      this.failure = err instanceof FrameError ? err : new FrameError('invalid_frame', 'The frame could not be read.');
      this.parts = [];
      this.buffered = 0;
    }
    return events;
  }

  /** undefined: needs more bytes; null: a step was made without an event; else an event. */
  private next(): WyomingEvent | null | undefined {
    if (this.state === 'header') {
      const at = this.findNewline();
      if (at < 0) {
        if (this.buffered > this.limits.maxHeaderBytes)
          throw new FrameError('frame_too_large', `The header line is longer than ${this.limits.maxHeaderBytes} bytes.`);
        return undefined;
      }
      if (at > this.limits.maxHeaderBytes)
        throw new FrameError('frame_too_large', `The header line is longer than ${this.limits.maxHeaderBytes} bytes.`);
      const line = this.take(at + 1).subarray(0, at);
      const text = line.toString('utf8').trim();
      // Blank lines between events are harmless; skip them.
      if (text === '') return null;
      let header: unknown;
      try {
        header = JSON.parse(text);
      } catch {
        throw new FrameError('invalid_json', 'The header line is not valid JSON.');
      }
      if (!isPlainObject(header)) throw new FrameError('invalid_json', 'The header line must be a JSON object.');
      if (typeof header.type !== 'string' || !TYPE_PATTERN.test(header.type))
        throw new FrameError('invalid_frame', 'The header needs a "type": lower-case letters, digits and dashes.');
      if (header.data !== undefined && header.data !== null && !isPlainObject(header.data))
        throw new FrameError('invalid_frame', '"data" must be a JSON object.');
      const dataLength = length(header, 'data_length', this.limits.maxDataBytes);
      const payloadLength = length(header, 'payload_length', this.limits.maxPayloadBytes);
      this.pending = { type: header.type, data: isPlainObject(header.data) ? header.data : {}, dataLength, payloadLength, extra: null };
      this.state = 'data';
      return null;
    }
    const p = this.pending!;
    if (this.state === 'data') {
      if (p.dataLength > 0) {
        if (this.buffered < p.dataLength) return undefined;
        const bytes = this.take(p.dataLength);
        let extra: unknown;
        try {
          extra = JSON.parse(bytes.toString('utf8'));
        } catch {
          throw new FrameError('invalid_json', 'The data block is not valid JSON.');
        }
        if (!isPlainObject(extra)) throw new FrameError('invalid_json', 'The data block must be a JSON object.');
        // The data block's fields win over the header's (the protocol merges them).
        p.data = { ...p.data, ...extra };
      }
      this.state = 'payload';
      return null;
    }
    if (p.payloadLength > 0 && this.buffered < p.payloadLength) return undefined;
    const payload = p.payloadLength > 0 ? this.take(p.payloadLength) : null;
    this.pending = null;
    this.state = 'header';
    return { type: p.type, data: p.data, payload };
  }

  /**
   * Index of the first newline in the buffered bytes, or -1. Resumes in the part and at the byte
   * where the last search stopped, so a long line arriving in many pieces is searched once.
   */
  private findNewline(): number {
    while (this.scanPart < this.parts.length) {
      const part = this.parts[this.scanPart]!;
      const i = part.indexOf(0x0a, Math.max(0, this.scanned - this.scanBase));
      if (i >= 0) return this.scanBase + i;
      this.scanBase += part.length;
      this.scanned = this.scanBase;
      this.scanPart++;
    }
    return -1;
  }

  /** Removes and returns the first n buffered bytes (n <= buffered). */
  private take(n: number): Buffer {
    const first = this.parts[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.parts.shift();
      else this.parts[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const part = this.parts[0]!;
        const k = Math.min(part.length, n - filled);
        part.copy(out, filled, 0, k);
        filled += k;
        if (k === part.length) this.parts.shift();
        else this.parts[0] = part.subarray(k);
      }
    }
    this.buffered -= n;
    // The parts changed: the next newline search starts afresh.
    this.scanned = 0;
    this.scanPart = 0;
    this.scanBase = 0;
    return out;
  }
}

/** One event as bytes: the header line, the data block (as data_length) and the payload. */
export function encodeEvent(type: string, data?: Record<string, unknown>, payload?: Buffer | Uint8Array | null): Buffer {
  const header: Record<string, unknown> = { type, version: WYOMING_VERSION };
  const parts: Buffer[] = [];
  let dataBytes: Buffer | null = null;
  if (data && Object.keys(data).length > 0) {
    dataBytes = Buffer.from(JSON.stringify(data), 'utf8');
    header.data_length = dataBytes.length;
  }
  if (payload && payload.length > 0) header.payload_length = payload.length;
  parts.push(Buffer.from(JSON.stringify(header) + '\n', 'utf8'));
  if (dataBytes) parts.push(dataBytes);
  if (payload && payload.length > 0)
    parts.push(Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.length));
  return Buffer.concat(parts);
}

/** The protocol version this server speaks (the one that added the streaming events). */
export const WYOMING_VERSION = '1.7.2';
