// Raw HTTP/1.1 over a TCP socket, for what app.inject() and HTTP clients cannot send: paths as-is
// (`..` unresolved), unknown methods, lying Content-Length, broken framing. Also the assertion
// that an answer carries the error body of docs/interface.md with X-Request-ID.

import assert from 'node:assert/strict';
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses the first response in `raw` (Content-Length framed, as every answer of this service is). */
export function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  assert.ok(end > 0, `no complete response head in ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? raw.length - end - 4);
  return { status, headers, body: raw.slice(end + 4, end + 4 + length) };
}

/**
 * Writes `data` to a fresh connection and answers what came back until the server closed it (or
 * `waitMs` passed). `halfClose` ends our side after writing (a client that sent less than it
 * declared and stopped).
 */
export function rawExchange(
  port: number,
  data: string | Buffer,
  opts: { halfClose?: boolean; waitMs?: number } = {},
): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedByServer = false;
    const timer = setTimeout(() => socket.destroy(), opts.waitMs ?? 5000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => {
      closedByServer = true;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer });
    });
    socket.write(data);
    if (opts.halfClose) socket.end();
  });
}

/** One request on its own connection (Connection: close), its response parsed. */
export async function rawRequest(port: number, head: string, body: string | Buffer = ''): Promise<RawResponse> {
  const data = Buffer.concat([Buffer.from(head, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1')]);
  return parseResponse((await rawExchange(port, data)).text);
}

/** Asserts the error body of docs/interface.md with `code`, and X-Request-ID equal to its request_id. */
export function assertErrorBody(res: RawResponse, status: number, code: string): Record<string, any> {
  assert.equal(res.status, status, `status for ${code}: ${res.body.slice(0, 300)}`);
  const body = JSON.parse(res.body);
  assert.equal(body.success, false);
  assert.equal(body.error.code, code, res.body.slice(0, 300));
  for (const f of ['message', 'category', 'resolution']) assert.equal(typeof body.error[f], 'string', f);
  assert.equal(typeof body.error.details, 'object');
  assert.match(body.request_id, /^req_[0-9a-f]{32}$/);
  assert.equal(res.headers['x-request-id'], body.request_id);
  assert.equal(typeof body.timestamp, 'number');
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  return body;
}
