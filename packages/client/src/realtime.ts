// A live transcription stream over the real-time WebSocket: write audio, receive typed events.
// Protocol: docs/realtime.md of the Parla repository.

import { EventEmitter, once } from 'node:events';
import WebSocket from 'ws';
import { ParlaError } from './errors.js';
import type { SttModel, Word } from './types.js';

export interface RealtimeOptions {
  model?: SttModel;
  language?: string;
  encoding?: 'linear16' | string;
  sample_rate?: number;
  interim_results?: boolean;
  endpointing?: number;
  utterance_end_ms?: number;
  punctuate?: boolean;
  smart_format?: boolean;
  keywords?: string | string[];
}

export interface RealtimeResult {
  type: 'Results';
  is_final: boolean;
  speech_final: boolean;
  start: number;
  duration: number;
  transcript: string;
  confidence: number;
  words: Word[];
  raw: Record<string, unknown>;
}

export interface RealtimeEvents {
  open: [metadata: Record<string, unknown>];
  interim: [result: RealtimeResult];
  final: [result: RealtimeResult];
  speechStarted: [event: Record<string, unknown>];
  utteranceEnd: [event: Record<string, unknown>];
  error: [error: ParlaError];
  summary: [summary: Record<string, unknown>];
  close: [code: number, reason: string];
  message: [message: Record<string, unknown>];
}

function toResult(msg: Record<string, unknown>): RealtimeResult {
  const channel = (msg.channel ?? {}) as { alternatives?: Array<{ transcript?: string; confidence?: number; words?: Word[] }> };
  const alt = channel.alternatives?.[0] ?? {};
  return {
    type: 'Results',
    is_final: msg.is_final === true,
    speech_final: msg.speech_final === true,
    start: Number(msg.start ?? 0),
    duration: Number(msg.duration ?? 0),
    transcript: alt.transcript ?? '',
    confidence: alt.confidence ?? 0,
    words: alt.words ?? [],
    raw: msg,
  };
}

/** The stream URL for a real-time address given with or without its path. */
export function realtimeStreamUrl(address: string): URL {
  const url = new URL(address);
  if (!url.pathname.endsWith('/stt/realtime/stream')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/v1/stt/realtime/stream`;
  return url;
}

// Node's codes for a certificate chain it cannot verify: the usual case is the server's own
// self-signed certificate, which the caller can trust by passing it as the CA.
const UNTRUSTED_CERT = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

function connectError(err: Error & { code?: string }, url: URL): ParlaError {
  if (err.code && UNTRUSTED_CERT.has(err.code)) {
    return new ParlaError({
      status: 0,
      code: 'TLS_UNTRUSTED_CERTIFICATE',
      category: 'network',
      message: `the real-time server at ${url.host} presented a certificate this client does not trust (${err.message}).`,
      resolution:
        "Trust the server's certificate: pass realtimeTls: { ca } with the PEM file (a server with no TLS_CERT_PATH writes its self-signed one to data/tls/realtime-cert.pem in its data directory; parla listen: --ca FILE).",
      cause: err,
    });
  }
  return new ParlaError({ status: 0, code: 'NETWORK_ERROR', message: err.message, cause: err });
}

export class RealtimeConnection extends EventEmitter<RealtimeEvents> {
  private closed = false;

  private constructor(private readonly ws: WebSocket) {
    super();
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(data.toString()) as Record<string, unknown>;
      } catch {
        return;
      }
      this.emit('message', msg);
      switch (msg.type) {
        case 'Metadata':
          this.emit('open', msg);
          break;
        case 'Results': {
          const r = toResult(msg);
          this.emit(r.is_final ? 'final' : 'interim', r);
          break;
        }
        case 'SpeechStarted':
          this.emit('speechStarted', msg);
          break;
        case 'UtteranceEnd':
          this.emit('utteranceEnd', msg);
          break;
        case 'Error':
          if (this.listenerCount('error') > 0) {
            this.emit(
              'error',
              new ParlaError({
                status: 0,
                code: String(msg.code ?? 'INTERNAL_ERROR'),
                message: String(msg.message ?? msg.description ?? 'error'),
                category: 'realtime',
              }),
            );
          }
          break;
        case 'Summary':
        case 'Finished':
        case 'SessionSummary':
          this.emit('summary', msg);
          break;
        default:
          break;
      }
    });
    ws.on('close', (code, reason) => {
      this.closed = true;
      this.emit('close', code, reason.toString());
    });
  }

  /** Opens a stream at `address`: wss://host:port, or the whole .../stt/realtime/stream URL. */
  static async open(
    address: string,
    apiKey: string,
    opts: RealtimeOptions,
    tls?: { ca?: string | Buffer; rejectUnauthorized?: boolean },
  ): Promise<RealtimeConnection> {
    const url = realtimeStreamUrl(address);
    url.searchParams.set('api_key', apiKey);
    for (const [k, v] of Object.entries(opts)) if (v !== undefined) url.searchParams.set(k, Array.isArray(v) ? v.join(',') : String(v));
    const ws = new WebSocket(url, { ...(tls ?? {}) });
    const conn = new RealtimeConnection(ws);
    const refused = new Promise<never>((_, reject) => {
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => {
          try {
            const parsed = JSON.parse(body) as {
              error: { code: string; message: string; category: string; resolution: string; details: Record<string, unknown> };
              request_id: string;
            };
            reject(
              new ParlaError({
                status: res.statusCode ?? 0,
                code: parsed.error.code,
                message: parsed.error.message,
                category: parsed.error.category,
                resolution: parsed.error.resolution,
                details: parsed.error.details,
                requestId: parsed.request_id,
              }),
            );
          } catch {
            reject(
              new ParlaError({
                status: res.statusCode ?? 0,
                code: 'UNEXPECTED_RESPONSE',
                message: `upgrade refused with HTTP ${res.statusCode}`,
              }),
            );
          }
        });
      });
      ws.once('error', (err) => reject(connectError(err, url)));
    });
    await Promise.race([once(ws, 'open'), refused]);
    return conn;
  }

  /** Sends audio (raw linear16 PCM unless another encoding was negotiated). */
  write(audio: Uint8Array): void {
    if (!this.closed) this.ws.send(audio);
  }

  keepAlive(): void {
    this.control({ type: 'KeepAlive' });
  }

  /** Flushes buffered audio as a final result without closing. */
  finalize(): void {
    this.control({ type: 'Finalize' });
  }

  /** Flushes, waits for the summary and the close. */
  async close(): Promise<Record<string, unknown> | null> {
    if (this.closed) return null;
    const summary = new Promise<Record<string, unknown> | null>((resolve) => {
      this.once('summary', (s) => resolve(s));
      this.once('close', () => resolve(null));
    });
    this.control({ type: 'CloseStream' });
    const s = await summary;
    if (!this.closed) await once(this, 'close');
    return s;
  }

  private control(msg: Record<string, unknown>): void {
    if (!this.closed) this.ws.send(JSON.stringify(msg));
  }
}
