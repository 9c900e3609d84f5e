// What the parts of a Wyoming conversation (src/wyoming/listen.ts, src/wyoming/speak.ts) need of
// the connection that carries it (src/wyoming/connection.ts): sending events, the key's
// authentication and admission, the connection's abort signal.

import { randomUUID } from 'node:crypto';
import type { Services } from '../services.js';
import type { AuthContext } from '../accounts/auth-context.js';
import type { FrameLimits } from './framing.js';

export interface WyomingServerOptions {
  /** The key every request is billed to. */
  apiKey: string;
  limits?: FrameLimits;
  /** A frame started must be complete within this (slow-drip senders are closed). */
  frameTimeoutMs?: number;
  /** A connection with no traffic at all is closed after this. */
  idleTimeoutMs?: number;
  /** Longest utterance a `transcribe` may send, seconds. */
  maxTranscribeSeconds?: number;
  /** Connections open at once; more are refused by the operating system's accept (closed at once). */
  maxConnections?: number;
}

export interface WyomingPeer {
  readonly services: Services;
  /** Aborts when the connection goes away. */
  readonly signal: AbortSignal;
  /** Longest utterance a `transcribe` may send, seconds. */
  readonly maxTranscribeSeconds: number;
  /** A connection with no traffic at all is closed after this (an utterance's session waits as long). */
  readonly idleTimeoutMs: number;
  send(type: string, data?: Record<string, unknown>, payload?: Buffer | null): Promise<void>;
  /** A protocol mistake: an error event; too many of them close the connection. */
  protocolError(code: string, text: string): Promise<void> | void;
  /** The configured key, authenticated per request (a revoked key stops working at once). */
  authenticate(): Promise<AuthContext>;
  /** The account's rate windows and one concurrency slot, as an HTTP request takes them; returns the release. */
  admit(auth: AuthContext): Promise<() => void>;
}

export function requestId(): string {
  return `wy_${randomUUID().replace(/-/g, '')}`;
}
