// One Wyoming connection: reads framed events (bounded: a frame must complete in time, at most
// MAX_QUEUED_EVENTS wait before the socket stops being read), answers them in order, turns every
// failure into an `error` event, and closes after a framing error, a timeout or too many protocol
// mistakes. The events themselves are answered by the listening part (src/wyoming/listen.ts) and
// the speaking part (src/wyoming/speak.ts).

import type net from 'node:net';
import type { Services } from '../services.js';
import type { AuthContext } from '../accounts/auth-context.js';
import { toApiError } from '../faults/translate.js';
import { admitLease } from '../limits/slot-lease.js';
import { LIVE_SLOT_RENEW_MS } from '../stt/service.js';
import { EventReader, FrameError, encodeEvent, type WyomingEvent } from './framing.js';
import { AudioFormatError } from './audio.js';
import { buildInfo } from './mapping.js';
import type { WyomingPeer, WyomingServerOptions } from './peer.js';
import { WyomingListener } from './listen.js';
import { WyomingSpeaker } from './speak.js';

/** Events queued on one connection before its socket stops being read. */
const MAX_QUEUED_EVENTS = 32;
/** Protocol mistakes (unknown events, audio out of order) a connection may make before it is closed. */
const MAX_PROTOCOL_ERRORS = 16;
const KNOWN_TYPES = new Set([
  'describe',
  'ping',
  'transcribe',
  'audio-start',
  'audio-chunk',
  'audio-stop',
  'synthesize',
  'synthesize-start',
  'synthesize-chunk',
  'synthesize-stop',
]);

export class Connection implements WyomingPeer {
  private readonly reader: EventReader;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private protocolErrors = 0;
  /** The event being handled was answered with an error (metrics). */
  private errored = false;
  /** No more output (the connection is going away). */
  private closing = false;
  /** No more input (a framing error or a timeout: the events before it are still answered). */
  private stopped = false;
  private frameTimer: NodeJS.Timeout | null = null;
  private readonly abort = new AbortController();
  private readonly listener = new WyomingListener(this);
  private readonly speaker = new WyomingSpeaker(this);

  constructor(
    readonly services: Services,
    private readonly socket: net.Socket,
    private readonly opts: Required<WyomingServerOptions>,
  ) {
    this.reader = new EventReader(opts.limits);
    socket.setNoDelay(true);
    socket.setTimeout(opts.idleTimeoutMs, () => this.fail('timeout', 'The connection was idle too long.'));
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closing = true;
      this.abort.abort();
      this.clearFrameTimer();
      this.listener.drop();
      this.speaker.close();
    });
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get maxTranscribeSeconds(): number {
    return this.opts.maxTranscribeSeconds;
  }

  get idleTimeoutMs(): number {
    return this.opts.idleTimeoutMs;
  }

  shutdown(): void {
    this.closing = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closing || this.stopped) return;
    let events: WyomingEvent[];
    try {
      events = this.reader.push(chunk);
    } catch (err) {
      const e = err instanceof FrameError ? err : new FrameError('invalid_frame', 'The frame could not be read.');
      this.fail(e.code, e.message);
      return;
    }
    for (const ev of events) this.enqueue(ev);
    const broken = this.reader.failure;
    if (broken) {
      this.fail(broken.code, broken.message);
      return;
    }
    // The clock runs while part of an event waits for the rest, from the last complete event on.
    if (events.length > 0 || !this.reader.midFrame) this.clearFrameTimer();
    this.armFrameTimer();
  }

  /** Starts the frame clock when part of an event is waiting and the socket is being read. */
  private armFrameTimer(): void {
    if (!this.reader.midFrame || this.socket.isPaused() || this.stopped || this.closing) return;
    this.frameTimer ??= setTimeout(() => this.fail('timeout', 'An event was not completed in time.'), this.opts.frameTimeoutMs);
  }

  private clearFrameTimer(): void {
    if (this.frameTimer) clearTimeout(this.frameTimer);
    this.frameTimer = null;
  }

  private enqueue(ev: WyomingEvent): void {
    this.queued++;
    if (this.queued >= MAX_QUEUED_EVENTS) {
      // Not reading: a partial event waiting now is this server's doing, not the peer's.
      this.socket.pause();
      this.clearFrameTimer();
    }
    const type = KNOWN_TYPES.has(ev.type) ? ev.type : 'other';
    let handled = false;
    this.queue = this.queue
      .then(() => {
        if (this.closing || (this.stopped && this.protocolErrors > MAX_PROTOCOL_ERRORS)) return undefined;
        this.errored = false;
        handled = true;
        return this.handle(ev);
      })
      .catch((err: unknown) => this.sendError(err))
      .finally(() => {
        if (handled) this.services.metrics.wyomingEvents.labels(type, this.errored ? 'error' : 'ok').inc();
        this.queued--;
        if (this.queued < MAX_QUEUED_EVENTS / 2 && !this.closing && !this.stopped && this.socket.isPaused()) {
          this.socket.resume();
          this.armFrameTimer();
        }
      });
  }

  /**
   * Reads nothing more, answers the events already read, then sends an error event and closes the
   * connection (framing is lost, it timed out, or it made too many mistakes).
   */
  private fail(code: string, text: string): void {
    if (this.closing || this.stopped) return;
    this.stopped = true;
    this.clearFrameTimer();
    this.socket.pause();
    // A peer that never reads its answers must not keep the socket.
    setTimeout(() => this.socket.destroy(), 5000).unref();
    void this.queue.then(() => {
      if (this.closing) return;
      this.closing = true;
      this.socket.end(encodeEvent('error', { text, code }));
      // Read (and drop) what the peer still sends, so its close is seen at once.
      this.socket.resume();
    });
  }

  private async write(buf: Buffer): Promise<void> {
    if (this.closing || this.socket.destroyed) throw new ClosedError();
    if (!this.socket.write(buf)) {
      await new Promise<void>((resolve, reject) => {
        const onDrain = () => {
          this.socket.off('close', onClose);
          resolve();
        };
        const onClose = () => {
          this.socket.off('drain', onDrain);
          reject(new ClosedError());
        };
        this.socket.once('drain', onDrain);
        this.socket.once('close', onClose);
      });
    }
  }

  send(type: string, data?: Record<string, unknown>, payload?: Buffer | null): Promise<void> {
    return this.write(encodeEvent(type, data, payload));
  }

  /** A protocol mistake: an error event; too many of them close the connection. */
  protocolError(code: string, text: string): Promise<void> | void {
    this.errored = true;
    this.protocolErrors++;
    if (this.protocolErrors > MAX_PROTOCOL_ERRORS) return this.fail(code, `${text} (too many protocol errors; closing)`);
    return this.send('error', { text, code }).catch(() => undefined);
  }

  private async sendError(err: unknown): Promise<void> {
    this.errored = true;
    if (err instanceof ClosedError || this.closing) return;
    if (err instanceof AudioFormatError) {
      // The rest of this utterance is dropped; its audio-stop ends the dropping.
      this.listener.audioBroken();
      await this.protocolError('invalid_audio', err.message);
      return;
    }
    const api = toApiError(err);
    if (api.code === 'INTERNAL_ERROR') this.services.log.error({ err }, 'Wyoming request failed');
    await this.send('error', { text: api.message, code: api.code }).catch(() => undefined);
  }

  async authenticate(): Promise<AuthContext> {
    return await this.services.authenticator.authenticate(this.opts.apiKey);
  }

  /** The account's rate windows and one concurrency slot, as an HTTP request takes them; returns the release. */
  async admit(auth: AuthContext): Promise<() => void> {
    const { limiter, config } = this.services;
    const plan = config.product.plans[auth.account.plan];
    const lease = (await admitLease(limiter, auth.account, plan)).keepAlive(LIVE_SLOT_RENEW_MS);
    return () => void lease.release();
  }

  private async handle(ev: WyomingEvent): Promise<void> {
    switch (ev.type) {
      case 'describe':
        return this.send('info', buildInfo(this.services.catalog, this.services.registry));
      case 'ping':
        return this.send('pong', typeof ev.data.text === 'string' ? { text: ev.data.text.slice(0, 1000) } : {});
      case 'transcribe':
        return this.listener.transcribe(ev);
      case 'audio-start':
        return this.listener.audioStart(ev);
      case 'audio-chunk':
        return this.listener.audioChunk(ev);
      case 'audio-stop':
        return this.listener.audioStop();
      case 'synthesize':
        return this.speaker.synthesize(ev);
      case 'synthesize-start':
        return this.speaker.synthesizeStart(ev);
      case 'synthesize-chunk':
        return this.speaker.synthesizeChunk(ev);
      case 'synthesize-stop':
        return this.speaker.synthesizeStop();
      default:
        return this.protocolError('unknown_event', `Parla's Wyoming server does not handle "${ev.type}" events.`);
    }
  }
}

class ClosedError extends Error {
  constructor() {
    super('connection closed');
  }
}
