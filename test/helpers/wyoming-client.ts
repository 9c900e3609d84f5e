// A Wyoming client written from the protocol's documentation (not from Parla's server code): each
// event is a JSON header line with type, data_length and payload_length, then the data bytes (JSON,
// merged into data) and the payload bytes. Used by the Wyoming tests to talk to a real server.

import net from 'node:net';

export interface ClientEvent {
  type: string;
  data: Record<string, any>;
  payload: Buffer | null;
}

export class WyomingTestClient {
  readonly events: ClientEvent[] = [];
  private buf = Buffer.alloc(0);
  private waiters = new Set<() => void>();
  closed = false;
  readonly closedPromise: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.parse();
    });
    socket.on('error', () => undefined);
    this.closedPromise = new Promise((resolve) =>
      socket.on('close', () => {
        this.closed = true;
        this.notify();
        resolve();
      }),
    );
  }

  static connect(port: number, host = '127.0.0.1'): Promise<WyomingTestClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, host, () => resolve(new WyomingTestClient(s)));
      s.once('error', reject);
    });
  }

  private notify(): void {
    for (const w of this.waiters) w();
  }

  private parse(): void {
    for (;;) {
      const nl = this.buf.indexOf(0x0a);
      if (nl < 0) return;
      const header = JSON.parse(this.buf.subarray(0, nl).toString('utf8'));
      const dataLength = header.data_length ?? 0;
      const payloadLength = header.payload_length ?? 0;
      if (this.buf.length < nl + 1 + dataLength + payloadLength) return;
      let data = header.data ?? {};
      if (dataLength > 0) data = { ...data, ...JSON.parse(this.buf.subarray(nl + 1, nl + 1 + dataLength).toString('utf8')) };
      const payload = payloadLength > 0 ? Buffer.from(this.buf.subarray(nl + 1 + dataLength, nl + 1 + dataLength + payloadLength)) : null;
      this.buf = this.buf.subarray(nl + 1 + dataLength + payloadLength);
      this.events.push({ type: header.type, data, payload });
      this.notify();
    }
  }

  /** Sends an event; `dataInHeader` puts data in the header line instead of a data block. */
  send(type: string, data?: Record<string, unknown>, payload?: Buffer, dataInHeader = false): void {
    const header: Record<string, unknown> = { type };
    const parts: Buffer[] = [];
    let dataBytes: Buffer | null = null;
    if (data && dataInHeader) header.data = data;
    else if (data) {
      dataBytes = Buffer.from(JSON.stringify(data));
      header.data_length = dataBytes.length;
    }
    if (payload) header.payload_length = payload.length;
    parts.push(Buffer.from(JSON.stringify(header) + '\n'));
    if (dataBytes) parts.push(dataBytes);
    if (payload) parts.push(payload);
    this.socket.write(Buffer.concat(parts));
  }

  sendRaw(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** Waits for the first event (from index `from`) matching `pred`; rejects on timeout or close. */
  waitFor(pred: (e: ClientEvent) => boolean, ms = 30_000, from = 0): Promise<ClientEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const e = this.events.slice(from).find(pred);
        if (e) {
          done();
          resolve(e);
        } else if (this.closed) {
          done();
          reject(new Error(`connection closed; events: ${this.events.map((x) => x.type).join(',')}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out; events: ${this.events.map((x) => x.type).join(',')}`));
      }, ms);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Sends PCM as audio-start, audio-chunks of `chunkFrames` frames, audio-stop. */
export function sendAudio(
  c: WyomingTestClient,
  pcm: Buffer,
  fmt: { rate: number; width: number; channels: number },
  chunkFrames = 1024,
): void {
  c.send('audio-start', fmt);
  const step = chunkFrames * fmt.width * fmt.channels;
  for (let at = 0; at < pcm.length; at += step) c.send('audio-chunk', fmt, pcm.subarray(at, Math.min(pcm.length, at + step)));
  c.send('audio-stop', {});
}
