// The decoder process's wire (src/audio/decoder/): one socket both ways, a frame being a 4-byte
// little-endian header length, the JSON header, then `header.bodyBytes` of binary body (the upload
// one way, 16-bit PCM the other). Both ends are Parla's own code; the reader still bounds what it
// buffers (a body is at most the largest upload or decoded cap).

export interface FrameHeader {
  bodyBytes: number;
  [k: string]: unknown;
}

export function encodeFrame(header: FrameHeader, body?: Uint8Array): Buffer[] {
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  return body && body.byteLength > 0 ? [len, json, Buffer.from(body.buffer, body.byteOffset, body.byteLength)] : [len, json];
}

/** Collects bytes and hands out whole frames in order. */
export class FrameReader {
  private parts: Buffer[] = [];
  private buffered = 0;
  private header: FrameHeader | null = null;

  constructor(private readonly maxBodyBytes: number) {}

  push(chunk: Buffer): Array<{ header: FrameHeader; body: Buffer }> {
    this.parts.push(chunk);
    this.buffered += chunk.length;
    const out: Array<{ header: FrameHeader; body: Buffer }> = [];
    for (;;) {
      if (!this.header) {
        if (this.buffered < 4) break;
        const all = this.take(this.buffered);
        const len = all.readUInt32LE(0);
        if (len > 64 * 1024) throw new Error('decoder frame header too long');
        this.put(all);
        if (this.buffered < 4 + len) break;
        const bytes = this.take(4 + len);
        const header = JSON.parse(bytes.toString('utf8', 4)) as FrameHeader;
        if (!Number.isSafeInteger(header.bodyBytes) || header.bodyBytes < 0 || header.bodyBytes > this.maxBodyBytes)
          throw new Error('decoder frame body too large');
        this.header = header;
      }
      if (this.buffered < this.header.bodyBytes) break;
      const body = this.take(this.header.bodyBytes);
      out.push({ header: this.header, body });
      this.header = null;
    }
    return out;
  }

  private take(n: number): Buffer {
    const all = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.buffered);
    const head = all.subarray(0, n);
    const rest = all.subarray(n);
    this.parts = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return head;
  }

  private put(b: Buffer): void {
    this.parts = b.length ? [b] : [];
    this.buffered = b.length;
  }
}
