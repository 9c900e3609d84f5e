// A raw HTTP/1.1 client for hostile requests: bytes go on the socket exactly as the case wrote
// them (odd methods, paths with NUL or "..", headers no well-behaved client would send, bodies
// that lie about their length), which Node's own http client refuses to send. Every request asks
// for Connection: close, so an answer is complete when the server closes the socket.
// Shared by the test suite and bench/hostile-health.ts.

import net from 'node:net';
import { Worker } from 'node:worker_threads';

export interface RawRequest {
  method: string;
  /** Sent as is on the request line: no normalization, no encoding. */
  path: string;
  headers: Array<[string, string]>;
  body: Buffer;
  /** Content-Length to declare instead of the body's real length (a lying client). */
  contentLength?: number | null;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  trailers: Record<string, string>;
}

export type Outcome =
  | { kind: 'answer'; res: RawResponse; ms: number }
  | { kind: 'stall'; ms: number }
  | { kind: 'no-answer'; ms: number; error: string };

export function serialize(req: RawRequest, host: string): Buffer {
  const lines = [`${req.method} ${req.path} HTTP/1.1`, `Host: ${host}`, 'Connection: close'];
  for (const [k, v] of req.headers) lines.push(`${k}: ${v}`);
  const declared =
    req.contentLength === undefined
      ? req.body.length > 0 || ['POST', 'PUT', 'PATCH'].includes(req.method)
        ? req.body.length
        : null
      : req.contentLength;
  if (declared !== null) lines.push(`Content-Length: ${declared}`);
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), req.body]);
}

/**
 * Sends one request on a fresh connection; a stall after timeoutMs destroys the socket. With
 * maxBytes, an answer is complete once that much of it arrived: the client stops listening and
 * hangs up, as one would on a long audio stream (what a stall is: no answer, not a long one).
 */
export function sendRaw(
  port: number,
  req: RawRequest,
  timeoutMs: number,
  host = `127.0.0.1:${port}`,
  maxBytes = Infinity,
): Promise<Outcome> {
  const bytes = serialize(req, host);
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error = '';
    let done = false;
    const socket = net.connect(port, '127.0.0.1');
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => finish({ kind: 'stall', ms: performance.now() - started }), timeoutMs);
    let received = 0;
    let capped = maxBytes < Infinity;
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      received += d.length;
      if (!capped || received < maxBytes) return;
      const res = parseResponse(Buffer.concat(chunks), req.method === 'HEAD');
      if (!res) return;
      // A JSON answer is read whole (its checks parse it); only media is cut at maxBytes.
      if (/json/i.test(res.headers['content-type'] ?? '')) capped = false;
      else finish({ kind: 'answer', res, ms: performance.now() - started });
    });
    // A server that answers early and closes may reset our unfinished upload: the answer counts.
    socket.on('error', (e) => (error = e.message));
    socket.on('close', () => {
      const ms = performance.now() - started;
      const all = Buffer.concat(chunks);
      const res = all.length > 0 ? parseResponse(all, req.method === 'HEAD') : null;
      finish(
        res
          ? { kind: 'answer', res, ms }
          : {
              kind: 'no-answer',
              ms,
              error:
                error ||
                (all.length ? `unparsable answer: ${JSON.stringify(all.subarray(0, 200).toString('latin1'))}` : 'closed without an answer'),
            },
      );
    });
    socket.write(bytes, () => undefined);
  });
}

function parseHeaderBlock(text: string, into: Record<string, string>): void {
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const k = line.slice(0, i).trim().toLowerCase();
    const v = line.slice(i + 1).trim();
    into[k] = into[k] === undefined ? v : `${into[k]}, ${v}`;
  }
}

/** The first response on the connection (status, headers, de-chunked body, trailers), or null. */
export function parseResponse(all: Buffer, head: boolean): RawResponse | null {
  // Interim answers (100 Continue) come before the real one.
  while (
    /^HTTP\/1\.[01] 1\d\d /.test(all.subarray(0, 13).toString('latin1')) &&
    !all.subarray(0, 13).toString('latin1').includes(' 101 ')
  ) {
    const e = all.indexOf('\r\n\r\n');
    if (e < 0) return null;
    all = all.subarray(e + 4);
  }
  const end = all.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine = '', ...rest] = all.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) return null;
  const headers: Record<string, string> = {};
  parseHeaderBlock(rest.join('\r\n'), headers);
  const trailers: Record<string, string> = {};
  let body = all.subarray(end + 4);
  const status = Number(m[1]);
  if (head || status === 204 || status === 304) body = Buffer.alloc(0);
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body, trailers);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body, trailers };
}

function dechunk(raw: Buffer, trailers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', pos);
    if (lineEnd < 0) break;
    const size = parseInt(raw.subarray(pos, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size)) break;
    pos = lineEnd + 2;
    if (size === 0) {
      const tEnd = raw.indexOf('\r\n\r\n', pos - 2);
      if (tEnd > pos) parseHeaderBlock(raw.subarray(pos, tEnd).toString('latin1'), trailers);
      break;
    }
    parts.push(raw.subarray(pos, pos + size));
    pos += size + 2;
  }
  return Buffer.concat(parts);
}

/**
 * The client side of sendRaw for `count` copies of one request at once, run on a worker thread: a
 * burst's 200 connects, writes and reads then load the service's event loop only with the
 * service's own work (this suite runs the service in its own process, so an in-thread client's
 * work would count as the service's). Plain JavaScript, so the worker needs no TypeScript loader.
 */
export async function burstFromWorker(port: number, req: RawRequest, count: number, timeoutMs: number): Promise<Outcome[]> {
  const bytes = serialize(req, `127.0.0.1:${port}`);
  const worker = new Worker(
    `const net = require('node:net');
    const { parentPort, workerData: w } = require('node:worker_threads');
    const one = () => new Promise((resolve) => {
      const started = performance.now();
      const chunks = [];
      let error = '';
      const socket = net.connect(w.port, '127.0.0.1');
      const timer = setTimeout(() => { socket.destroy(); resolve({ stalled: true, ms: performance.now() - started }); }, w.timeoutMs);
      socket.on('data', (d) => chunks.push(d));
      socket.on('error', (e) => (error = e.message));
      socket.on('close', () => { clearTimeout(timer); resolve({ bytes: Buffer.concat(chunks), error, ms: performance.now() - started }); });
      socket.write(Buffer.from(w.bytes));
    });
    Promise.all(Array.from({ length: w.count }, one)).then((r) => parentPort.postMessage(r));`,
    { eval: true, workerData: { port, bytes, count, timeoutMs } },
  );
  try {
    const results = await new Promise<Array<{ stalled?: true; bytes?: Uint8Array; error?: string; ms: number }>>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    return results.map((r): Outcome => {
      if (r.stalled) return { kind: 'stall', ms: r.ms };
      const all = Buffer.from(r.bytes!);
      const res = all.length > 0 ? parseResponse(all, req.method === 'HEAD') : null;
      return res ? { kind: 'answer', res, ms: r.ms } : { kind: 'no-answer', ms: r.ms, error: r.error || 'closed without an answer' };
    });
  } finally {
    await worker.terminate();
  }
}
