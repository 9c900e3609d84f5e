// The Wyoming edge: a TCP server speaking Home Assistant's local voice protocol, billed to the
// account of one configured key. Like the HTTP routes it only translates: each request is
// authenticated with the normal authenticator (a revoked key stops working at once), admitted
// against the account's rate windows and concurrency slot, and served by the same TtsService and
// SttService as the native API, so billing, feature switches, metrics and usage are unchanged.
// Failures become `error` events; a connection whose framing breaks is closed after its error.
// This file listens and counts connections; one connection is src/wyoming/connection.ts.

import net from 'node:net';
import type { Services } from '../services.js';
import { toApiError } from '../faults/translate.js';
import { DEFAULT_FRAME_LIMITS } from './framing.js';
import { Connection } from './connection.js';
import type { WyomingServerOptions } from './peer.js';

export type { WyomingServerOptions };

export class WyomingServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  private readonly opts: Required<WyomingServerOptions>;

  constructor(
    readonly services: Services,
    opts: WyomingServerOptions,
  ) {
    this.opts = {
      limits: DEFAULT_FRAME_LIMITS,
      frameTimeoutMs: 30_000,
      idleTimeoutMs: 300_000,
      maxTranscribeSeconds: 300,
      maxConnections: 64,
      ...opts,
    };
    this.server = net.createServer((socket) => {
      const c = new Connection(services, socket, this.opts);
      this.connections.add(c);
      services.metrics.wyomingConnections.inc();
      socket.once('close', () => {
        this.connections.delete(c);
        services.metrics.wyomingConnections.dec();
      });
    });
    // Each connection may hold an utterance of up to maxTranscribeSeconds (300 s: 9.6 MB) and
    // frames of a few MB: bound how many there are (64: under 1 GB at worst).
    this.server.maxConnections = this.opts.maxConnections;
    this.server.on('error', (err) => services.log.error({ err }, 'Wyoming server error'));
  }

  /** Checks the key once at start: a bad key is logged loudly (requests then answer with error events). */
  async checkKey(): Promise<boolean> {
    try {
      await this.services.authenticator.authenticate(this.opts.apiKey);
      return true;
    } catch (err) {
      this.services.log.error({ code: toApiError(err).code }, 'WYOMING_API_KEY does not authenticate: Wyoming requests will be refused');
      return false;
    }
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const c of this.connections) c.shutdown();
    await closed;
  }

  get connectionCount(): number {
    return this.connections.size;
  }
}
