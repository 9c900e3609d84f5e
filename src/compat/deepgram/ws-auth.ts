// The key of a Deepgram WebSocket handshake. Deepgram's SDK sends it as `Authorization: Token
// <key>` (or `Bearer <key>`) where it can set headers (Node), and browsers, which cannot, send it
// as the subprotocol list `token, <key>` (Sec-WebSocket-Protocol); then the server must select
// the `token` subprotocol or the browser drops the connection (RFC 6455 4.1).

import type { IncomingMessage } from 'node:http';
import { authorizationToken } from '../../http/auth.js';

export interface HandshakeKey {
  /** The API key, or undefined when the handshake carries none (401). */
  key: string | undefined;
  /** The subprotocol to select in the answer ('token'), when the key came that way. */
  protocol: string | null;
}

export function handshakeKey(req: IncomingMessage): HandshakeKey {
  const header = req.headers.authorization;
  const fromHeader = authorizationToken(Array.isArray(header) ? header[0] : header);
  if (fromHeader !== undefined) return { key: fromHeader, protocol: null };
  const protocols = req.headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    const list = protocols.split(',').map((p) => p.trim());
    const at = list.findIndex((p) => p.toLowerCase() === 'token' || p.toLowerCase() === 'bearer');
    if (at >= 0 && list[at + 1] !== undefined) return { key: list[at + 1], protocol: list[at]! };
  }
  return { key: undefined, protocol: null };
}
