// The handshake of WS /v1/realtime (socket-route.ts): where its key comes from (the Authorization
// header, or from browsers the subprotocol `openai-insecure-api-key.<key>`), and a refusal answered
// before the upgrade as an HTTP error in OpenAI's body.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { reasonPhrase } from '../../../edge/ws-routes.js';
import type { ApiError } from '../../../errors.js';
import { authorizationToken } from '../../../http/auth.js';
import { openAiErrorBody } from '../errors.js';

const KEY_PROTOCOL = 'openai-insecure-api-key.';

/** The key of the handshake and the subprotocol to select ('realtime' when the browser offered it). */
export function handshakeCredential(req: IncomingMessage): { key: string | undefined; protocol: string | null } {
  const header = req.headers.authorization;
  const fromHeader = authorizationToken(Array.isArray(header) ? header[0] : header);
  const offered =
    typeof req.headers['sec-websocket-protocol'] === 'string' ? req.headers['sec-websocket-protocol'].split(',').map((p) => p.trim()) : [];
  const protocol = offered.includes('realtime') ? 'realtime' : null;
  if (fromHeader !== undefined) return { key: fromHeader, protocol };
  const inProtocol = offered.find((p) => p.startsWith(KEY_PROTOCOL));
  return { key: inProtocol?.slice(KEY_PROTOCOL.length), protocol };
}

/** Answers a refused handshake with OpenAI's error body (the client reports the status). */
export function refuse(socket: Duplex, err: ApiError, requestId: string): void {
  const body = JSON.stringify(openAiErrorBody(err));
  const head = [
    `HTTP/1.1 ${err.status} ${reasonPhrase(err.status)}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-ID: ${requestId}`,
  ];
  if (err.retryAfter !== undefined) head.push(`Retry-After: ${Math.ceil(err.retryAfter)}`);
  if (socket.writable) socket.end(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`);
  else socket.destroy();
}
