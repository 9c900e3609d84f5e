// The WebSocket handshake's checks, shared by every socket edge (the native stream, Deepgram's
// /v1/listen and /v1/speak): a handshake ws would refuse is refused before a slot, a hold or a
// recognizer is taken, with the edge's own error body.

import type { IncomingMessage } from 'node:http';

const WS_KEY = /^[+/0-9A-Za-z]{22}==$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why ws would refuse this handshake (RFC 6455 4.2.1, as ws checks it), or null. */
export function handshakeProblem(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return 'The WebSocket handshake is a GET request.';
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return 'The handshake needs the header Upgrade: websocket.';
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !WS_KEY.test(key)) return 'Missing or invalid Sec-WebSocket-Key header.';
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return 'Sec-WebSocket-Version must be 13.';
  const protocols = req.headers['sec-websocket-protocol'];
  if (protocols !== undefined) {
    const list = protocols.split(',').map((p) => p.trim());
    if (list.some((p) => !TOKEN.test(p)) || new Set(list).size !== list.length) return 'Invalid Sec-WebSocket-Protocol header.';
  }
  return null;
}
