// The Wyoming edge: a TCP server speaking Home Assistant's local voice protocol, billed to the
// account of one configured key. Like the HTTP routes it only translates: each request is
// authenticated with the normal authenticator (a revoked key stops working at once), admitted
// against the account's rate windows and concurrency slot, and served by the same TtsService and
// SttService as the native API, so billing, feature switches, metrics and usage are unchanged.
// Failures become `error` events; a connection whose framing breaks is closed after its error.

import net from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Services } from '../services.js';
import type { AuthContext } from '../accounts/auth-context.js';
import { ApiError } from '../errors.js';
import { toApiError } from '../edge/errors.js';
import { admitRequest, SLOT_LEASE_MS } from '../limits/admission.js';
import { LIVE_SLOT_RENEW_MS } from '../stt/service.js';
import { parseSttFields } from '../stt/request.js';
import { encodeWav } from '../audio/wav.js';
import { DEFAULT_FRAME_LIMITS, EventReader, FrameError, encodeEvent, type FrameLimits, type WyomingEvent } from './framing.js';
import { AudioFormatError, Utterance16k, readFormat, type AudioFormat } from './audio.js';
import { buildInfo, mapSttModel, mapVoice, parlaLanguage } from './catalog.js';

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

/** Sample rate of synthesized audio (Piper's usual rate, which Home Assistant's players expect). */
export const TTS_RATE = 22050;
/** Events queued on one connection before its socket stops being read. */
const MAX_QUEUED_EVENTS = 32;
/** Protocol mistakes (unknown events, audio out of order) a connection may make before it is closed. */
const MAX_PROTOCOL_ERRORS = 16;
/** Longest streamed text (as /tts/stream). */
const MAX_STREAM_TEXT = 50_000;
const KNOWN_TYPES = new Set(['describe', 'ping', 'transcribe', 'audio-start', 'audio-chunk', 'audio-stop', 'synthesize', 'synthesize-start', 'synthesize-chunk', 'synthesize-stop']);
/** Outgoing audio is cut into chunks of at most this many bytes (about 0.1 s). */
const CHUNK_BYTES = 4410;

export class WyomingServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  private readonly opts: Required<WyomingServerOptions>;

  constructor(
    readonly services: Services,
    opts: WyomingServerOptions,
  ) {
    this.opts = { limits: DEFAULT_FRAME_LIMITS, frameTimeoutMs: 30_000, idleTimeoutMs: 300_000, maxTranscribeSeconds: 300, maxConnections: 64, ...opts };
    this.server = net.createServer((socket) => {
      const c = new Connection(this, socket, this.opts);
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

interface Listening {
  model: string;
  language: string | undefined;
  /** Set by audio-start. */
  format: AudioFormat | null;
  audio: Utterance16k | null;
}

interface SpeakingStream {
  voice: unknown;
  text: string;
  /** Characters of `text` already handed to synthesis. */
  spoken: number;
  /** Characters of `text` already searched for a sentence end. */
  scanned: number;
  release: () => void;
  audioStarted: boolean;
  failed: boolean;
}

class Connection {
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
  private listening: Listening | null = null;
  /**
   * One refusal is one error event: after a refused `transcribe` (or first `audio-start`) its whole
   * audio stream is dropped up to its audio-stop ('refused'); after bad audio, the rest of that
   * utterance up to its audio-stop, a new audio-start beginning afresh ('broken').
   */
  private discarding: 'refused' | 'broken' | null = null;
  private speaking: SpeakingStream | null = null;

  constructor(
    private readonly owner: WyomingServer,
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
      this.dropListening();
      this.speaking?.release();
      this.speaking = null;
    });
  }

  private get services(): Services {
    return this.owner.services;
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

  private send(type: string, data?: Record<string, unknown>, payload?: Buffer | null): Promise<void> {
    return this.write(encodeEvent(type, data, payload));
  }

  /** A protocol mistake: an error event; too many of them close the connection. */
  private protocolError(code: string, text: string): Promise<void> | void {
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
      if (this.listening) this.discarding = 'broken';
      this.dropListening();
      await this.protocolError('invalid_audio', err.message);
      return;
    }
    const api = toApiError(err);
    if (api.code === 'INTERNAL_ERROR') this.services.log.error({ err }, 'Wyoming request failed');
    await this.send('error', { text: api.message, code: api.code }).catch(() => undefined);
  }

  private async authenticate(): Promise<AuthContext> {
    return await this.services.authenticator.authenticate(this.opts.apiKey);
  }

  /** The account's rate windows and one concurrency slot, as an HTTP request takes them; returns the release. */
  private async admit(auth: AuthContext): Promise<() => void> {
    const { limiter, config } = this.services;
    const plan = config.product.plans[auth.account.plan];
    const admitted = await admitRequest(limiter, auth.account, plan, SLOT_LEASE_MS);
    if (admitted.refusal) throw admitted.refusal;
    const slotId = admitted.slotId;
    const renew = setInterval(() => void limiter.renewSlot(auth.account.id, slotId, SLOT_LEASE_MS).catch(() => undefined), LIVE_SLOT_RENEW_MS);
    renew.unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(renew);
      void Promise.resolve(limiter.releaseSlot(auth.account.id, slotId)).catch(() => undefined);
    };
  }

  private async handle(ev: WyomingEvent): Promise<void> {
    switch (ev.type) {
      case 'describe':
        return this.send('info', buildInfo(this.services.catalog, this.services.registry));
      case 'ping':
        return this.send('pong', typeof ev.data.text === 'string' ? { text: ev.data.text.slice(0, 1000) } : {});
      case 'transcribe':
        return this.onTranscribe(ev);
      case 'audio-start':
        return this.onAudioStart(ev);
      case 'audio-chunk':
        return this.onAudioChunk(ev);
      case 'audio-stop':
        return this.onAudioStop();
      case 'synthesize':
        return this.onSynthesize(ev);
      case 'synthesize-start':
        return this.onSynthesizeStart(ev);
      case 'synthesize-chunk':
        return this.onSynthesizeChunk(ev);
      case 'synthesize-stop':
        return this.onSynthesizeStop();
      default:
        return this.protocolError('unknown_event', `Parla's Wyoming server does not handle "${ev.type}" events.`);
    }
  }

  // --- speech-to-text ---

  private async onTranscribe(ev: WyomingEvent): Promise<void> {
    this.dropListening();
    this.discarding = 'refused';
    const auth = await this.authenticate();
    this.services.stt.checkAccess(auth, 'batch');
    for (const field of ['name', 'language'] as const) {
      const v = ev.data[field];
      if (v !== undefined && v !== null && (typeof v !== 'string' || v.length > 100)) {
        throw new ApiError('INVALID_PARAMETER', { message: `transcribe.${field} must be a string of at most 100 characters.`, details: { field } });
      }
    }
    const language = typeof ev.data.language === 'string' && ev.data.language.trim() !== '' ? parlaLanguage(ev.data.language.trim()) : undefined;
    const model = mapSttModel(ev.data.name);
    // Model and language are checked now, so a bad one is refused before any audio is sent.
    const checked = this.services.registry.checkSttModel(model, 'universal');
    this.services.registry.resolveSttLanguage(checked, language);
    this.listening = { model, language, format: null, audio: null };
    this.discarding = null;
  }

  /** Forgets the utterance being collected (its resampler is given back). */
  private dropListening(): void {
    this.listening?.audio?.dispose();
    this.listening = null;
  }

  private async onAudioStart(ev: WyomingEvent): Promise<void> {
    if (this.discarding === 'refused') return;
    this.discarding = null;
    // Without `transcribe` first, the defaults.
    if (!this.listening) {
      this.discarding = 'refused';
      const auth = await this.authenticate();
      this.services.stt.checkAccess(auth, 'batch');
      this.listening = { model: mapSttModel(undefined), language: undefined, format: null, audio: null };
      this.discarding = null;
    }
    try {
      this.listening.format = readFormat(ev.data, null);
    } catch (err) {
      this.dropListening();
      this.discarding = 'broken';
      throw err;
    }
    this.listening.audio?.dispose();
    this.listening.audio = new Utterance16k(this.opts.maxTranscribeSeconds * 16000);
  }

  private async onAudioChunk(ev: WyomingEvent): Promise<void> {
    if (this.discarding) return;
    const l = this.listening;
    if (!l || !l.audio || !l.format) return this.protocolError('audio_without_start', 'audio-chunk before audio-start.');
    const format = readFormat(ev.data, l.format);
    if (!ev.payload) return;
    if (!(await l.audio.add(ev.payload, format))) {
      this.dropListening();
      this.discarding = 'broken';
      throw new ApiError('FILE_TOO_LARGE', { message: `An utterance may be at most ${this.opts.maxTranscribeSeconds} seconds long.` });
    }
  }

  private async onAudioStop(): Promise<void> {
    if (this.discarding) {
      this.discarding = null;
      return;
    }
    const l = this.listening;
    if (!l || !l.audio) return this.protocolError('audio_without_start', 'audio-stop before audio-start.');
    this.listening = null;
    const pcm = await l.audio.finish();
    // The same path as an upload to /api/v1/stt/transcribe: the service decodes, prices, bills.
    const options = parseSttFields(new Map(Object.entries({ model: l.model, ...(l.language ? { language: l.language } : {}) })), 'universal');
    const auth = await this.authenticate();
    const release = await this.admit(auth);
    let result;
    try {
      result = await this.services.stt.transcribe(auth, { requestId: requestId(), endpoint: 'universal', options, audio: encodeWav(pcm, 16000) }, this.abort.signal);
    } finally {
      release();
    }
    const { transcript, language } = result;
    // Streaming events first, the complete transcript last: a client that knows only `transcript`
    // reads up to it and leaves nothing unread on the connection.
    await this.send('transcript-start', { language });
    for (const s of transcript.segments) if (s.text.trim() !== '') await this.send('transcript-chunk', { text: s.text });
    await this.send('transcript-stop');
    await this.send('transcript', { text: transcript.text, language });
  }

  // --- text-to-speech ---

  private async onSynthesize(ev: WyomingEvent): Promise<void> {
    // Streaming clients also send the whole text as `synthesize` for servers that cannot stream;
    // it is already being spoken from the chunks.
    if (this.speaking) return;
    const text = ev.data.text;
    if (typeof text !== 'string') throw new ApiError('MISSING_TEXT', { message: 'synthesize needs data.text.' });
    const release = await this.admit(await this.authenticate());
    try {
      const started = await this.speak(ev.data.voice, text, false);
      if (started) await this.send('audio-stop');
    } finally {
      release();
    }
  }

  private async onSynthesizeStart(ev: WyomingEvent): Promise<void> {
    if (this.speaking) return this.protocolError('synthesize_in_progress', 'synthesize-start while a streamed synthesis is open.');
    try {
      const auth = await this.authenticate();
      // Checked now so a refused stream says so before its text arrives.
      mapVoice(this.services.catalog, ev.data.voice);
      const release = await this.admit(auth);
      this.speaking = { voice: ev.data.voice, text: '', spoken: 0, scanned: 0, release, audioStarted: false, failed: false };
    } catch (err) {
      // A refused stream is one error: its chunks are dropped, its stop still answered.
      this.speaking = { voice: ev.data.voice, text: '', spoken: 0, scanned: 0, release: () => undefined, audioStarted: false, failed: true };
      throw err;
    }
  }

  private async onSynthesizeChunk(ev: WyomingEvent): Promise<void> {
    const s = this.speaking;
    if (!s) return this.protocolError('synthesize_without_start', 'synthesize-chunk before synthesize-start.');
    if (s.failed) return;
    if (typeof ev.data.text !== 'string') return this.protocolError('invalid_event', 'synthesize-chunk needs data.text.');
    if (s.text.length + ev.data.text.length > MAX_STREAM_TEXT) {
      s.failed = true;
      throw new ApiError('TEXT_TOO_LONG', { message: `A streamed synthesis may be at most ${MAX_STREAM_TEXT} characters.` });
    }
    s.text += ev.data.text;
    // Each finished sentence is spoken while the rest of the text is still arriving.
    const end = lastSentenceEnd(s.text, Math.max(s.spoken, s.scanned));
    s.scanned = Math.max(s.spoken, s.text.length - 1);
    if (end > s.spoken) await this.speakPiece(s, s.text.slice(s.spoken, end), end);
  }

  private async onSynthesizeStop(): Promise<void> {
    const s = this.speaking;
    if (!s) return this.protocolError('synthesize_without_start', 'synthesize-stop before synthesize-start.');
    try {
      if (!s.failed && s.text.slice(s.spoken).trim() !== '') await this.speakPiece(s, s.text.slice(s.spoken), s.text.length);
      if (s.audioStarted) await this.send('audio-stop');
      await this.send('synthesize-stopped');
    } finally {
      s.release();
      this.speaking = null;
    }
  }

  private async speakPiece(s: SpeakingStream, piece: string, end: number): Promise<void> {
    s.spoken = end;
    if (piece.trim() === '') return;
    try {
      const started = await this.speak(s.voice, piece, s.audioStarted);
      s.audioStarted ||= started;
    } catch (err) {
      // One error for the stream; what follows is dropped until synthesize-stop.
      s.failed = true;
      throw err;
    }
  }

  /**
   * Speaks `text` through TtsService.stream (billed as /tts/stream), sending audio-start first
   * unless `continuing`; returns whether audio-start was sent. The caller sends audio-stop.
   */
  private async speak(voice: unknown, text: string, continuing: boolean): Promise<boolean> {
    // Per request, like the HTTP hook: a key revoked mid-stream stops the next sentence.
    const auth = await this.authenticate();
    const v = mapVoice(this.services.catalog, voice);
    const stream = await this.services.tts.stream(
      auth,
      { requestId: requestId(), text, voice: v.voice, model: v.model, language: v.language, speed: 1, pitch: undefined, sampleRate: TTS_RATE },
      this.abort.signal,
      this.services.log,
    );
    const format = { rate: TTS_RATE, width: 2, channels: 1 };
    if (!continuing) await this.send('audio-start', format);
    let carry: Buffer | null = null;
    try {
      for await (const piece of stream.body as AsyncIterable<Buffer>) {
        let buf: Buffer = carry ? Buffer.concat([carry, piece]) : piece;
        const whole = buf.length - (buf.length % 2);
        carry = whole < buf.length ? Buffer.from(buf.subarray(whole)) : null;
        buf = buf.subarray(0, whole);
        for (let at = 0; at < buf.length; at += CHUNK_BYTES) await this.send('audio-chunk', format, buf.subarray(at, Math.min(buf.length, at + CHUNK_BYTES)));
      }
    } catch (err) {
      stream.body.destroy();
      throw err;
    }
    return !continuing;
  }
}

class ClosedError extends Error {
  constructor() {
    super('connection closed');
  }
}

function requestId(): string {
  return `wy_${randomUUID().replace(/-/g, '')}`;
}

/** End of the last complete sentence in text after `from` (a terminator followed by space), or `from`. */
function lastSentenceEnd(text: string, from: number): number {
  let end = from;
  for (let i = from; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    // . ! ? and their CJK forms, followed by white space.
    if ((c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3002 || c === 0xff01 || c === 0xff1f) && /\s/.test(text[i + 1]!)) end = i + 2;
  }
  return end;
}
