// One WS /v1/speak session (docs/compatibility.md, "Speak"): Deepgram's client messages in, audio
// and its control messages out.
//
// - Speak {text}: appended to the session's text; each sentence that is complete (the project's
//   linear sentence scanner, src/tts/sentences.ts: a sentence end followed by more text) is queued
//   to be spoken at once, so a voice agent streaming LLM tokens hears the first sentence before it
//   flushes. Flush queues the rest and then Flushed {sequence_id}, sent after that audio.
// - Clear stops the utterance being spoken and drops what is queued, then Cleared {sequence_id}.
//   Flush and Clear share one sequence, numbered from 0 in the order they arrive.
// - Close ends the session at once, as Deepgram's ("Close will close the websocket connection
//   immediately"): what is being spoken stops (billed for the sentences sent), then close 1000.
// - Each utterance is one TtsService.stream: held, spoken, settled for the sentences whose audio
//   was all sent (decisions #30), so cleared text is not billed. Audio goes out as binary frames,
//   raw (linear16, or G.711 companded: src/audio/g711.ts); the session stops reading synthesis
//   while the client is behind (bufferedAmount), so audio never piles up unbounded here.
// - Deepgram's limits: 2,000 characters per Speak, 20 Flush per 60 s; beyond them a Warning and
//   the message is dropped. Text waiting to be spoken is capped (maxBufferedChars) the same way.
//   Malformed, unknown or binary client messages get a Warning too; the session goes on.
// - A failure of the service (no credits left, a rate limit, an engine) is sent as an Error
//   message in Deepgram's error shape, and the socket closes (1008 for the caller's fault, 1011 else).

import type { WebSocket } from 'ws';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthContext } from '../../accounts/auth-context.js';
import { logLevelOf, toApiError } from '../../faults/translate.js';
import type { TtsService } from '../../tts/service.js';
import { splitSentences } from '../../tts/sentences.js';
import { compandBytes } from '../../audio/g711.js';
import { deepgramErrorBody } from './errors.js';
import { SPEAK_TEXT_LIMIT, type SocketSpeakParams, type SpeakVoice } from './speak-mapping.js';

export const SPEAK_SOCKET_LIMITS = {
  /** Largest client message (a Speak of 2,000 characters, JSON-escaped, fits with room to spare). */
  maxMessageBytes: 64 * 1024,
  /** Text received and not yet spoken (Deepgram does not publish its figure). */
  maxBufferedChars: 20_000,
  /** Deepgram: at most 20 Flush messages every 60 seconds. */
  flushesPerWindow: 20,
  flushWindowMs: 60_000,
  /** Audio handed to the socket and not yet sent before synthesis pauses for the client. */
  maxBufferedAudioBytes: 512 * 1024,
} as const;

type QueueItem = { kind: 'text'; text: string } | { kind: 'flushed'; id: number };

export interface SpeakSessionOptions {
  tts: TtsService;
  auth: AuthContext;
  requestId: string;
  voice: SpeakVoice;
  params: SocketSpeakParams;
  log: FastifyBaseLogger;
  idleTimeoutMs: number;
  onEnd: () => void;
}

export class SpeakSession {
  private pending = '';
  private queue: QueueItem[] = [];
  /** Characters in `pending` and in queued text items. */
  private buffered = 0;
  private sequence = 0;
  /** Bumped by Clear: text counted before it is no longer in `buffered`. */
  private generation = 0;
  private utterances = 0;
  private readonly flushTimes: number[] = [];
  private current: AbortController | null = null;
  private running = false;
  private ended = false;
  private idleTimer: NodeJS.Timeout | null = null;
  /** An odd byte of linear PCM left over from a chunk (companding takes whole samples). */
  private carry: Buffer | null = null;

  constructor(
    private readonly ws: WebSocket,
    private readonly o: SpeakSessionOptions,
  ) {}

  start(): void {
    const { ws, o } = this;
    ws.on('message', (data, isBinary) => {
      // Frames still arrive during the close handshake; a throwing listener would end the process.
      if (this.ended) return;
      try {
        this.touch();
        if (isBinary)
          return this.warn(
            'UNSUPPORTED_MESSAGE',
            'Binary messages are not read on the speak socket; send Speak, Flush, Clear or Close as JSON text.',
          );
        this.onText(data.toString());
      } catch (err) {
        void this.fail(err).catch(() => undefined);
      }
    });
    ws.on('close', () => void this.end(1000, 'client closed'));
    ws.on('error', () => void this.end(1000, 'client error'));
    this.send({
      type: 'Metadata',
      request_id: o.requestId,
      model_name: o.voice.modelName,
      model_version: `parla-${o.voice.model}`,
      model_uuid: `parla:${o.voice.model}:${o.voice.voice}`,
    });
    this.touch();
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      // Still speaking: the client is waiting for audio, not idle.
      if (this.running) return this.touch();
      void this.end(1000, `idle: no message for ${Math.round(this.o.idleTimeoutMs / 1000)} s`);
    }, this.o.idleTimeoutMs);
    this.idleTimer.unref();
  }

  private send(message: Record<string, unknown>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  private warn(code: string, description: string): void {
    this.send({ type: 'Warning', description, code });
  }

  private onText(raw: string): void {
    if (this.ended) return;
    let msg: unknown;
    try {
      msg = JSON.parse(raw);
    } catch {
      return this.warn('INVALID_JSON', 'The message is not JSON; send {"type": "Speak", "text": "..."}, Flush, Clear or Close.');
    }
    const type = msg !== null && typeof msg === 'object' && !Array.isArray(msg) ? (msg as { type?: unknown }).type : undefined;
    switch (type) {
      case 'Speak':
        return this.onSpeak((msg as { text?: unknown }).text);
      case 'Flush':
        return this.onFlush();
      case 'Clear':
        return this.onClear();
      case 'Close':
        return this.onClose();
      default:
        return this.warn(
          'UNKNOWN_MESSAGE_TYPE',
          `Unknown message type ${JSON.stringify(typeof type === 'string' ? type.slice(0, 50) : (type ?? null))}; send Speak, Flush, Clear or Close.`,
        );
    }
  }

  private onSpeak(text: unknown): void {
    if (typeof text !== 'string') return this.warn('INVALID_MESSAGE', 'A Speak message carries its text as a string in "text".');
    let n = 0;
    for (const _ of text) n++;
    if (n > SPEAK_TEXT_LIMIT)
      return this.warn(
        'TEXT_LIMIT_EXCEEDED',
        `A Speak message may carry at most ${SPEAK_TEXT_LIMIT} characters; this one (${n}) was dropped. Split the text across messages.`,
      );
    if (this.buffered + text.length > SPEAK_SOCKET_LIMITS.maxBufferedChars) {
      return this.warn(
        'BUFFER_FULL',
        `At most ${SPEAK_SOCKET_LIMITS.maxBufferedChars} characters may wait to be spoken; this Speak was dropped. Flush and wait for Flushed, or Clear.`,
      );
    }
    this.pending += text;
    this.buffered += text.length;
    // Complete sentences are queued now; the last piece may still grow.
    const pieces = splitSentences(this.pending);
    if (pieces.length >= 2) {
      const last = pieces[pieces.length - 1]!;
      this.commit(this.pending.slice(0, this.pending.length - last.length));
      this.pending = last;
    }
  }

  /** Queues text to be spoken (its characters stay counted in `buffered` until spoken or dropped). */
  private commit(text: string): void {
    if (text.trim() !== '') this.queue.push({ kind: 'text', text });
    else this.buffered -= text.length;
    this.kick();
  }

  private onFlush(): void {
    const now = Date.now();
    while (this.flushTimes.length > 0 && now - this.flushTimes[0]! >= SPEAK_SOCKET_LIMITS.flushWindowMs) this.flushTimes.shift();
    if (this.flushTimes.length >= SPEAK_SOCKET_LIMITS.flushesPerWindow) {
      return this.warn(
        'FLUSH_LIMIT_EXCEEDED',
        `At most ${SPEAK_SOCKET_LIMITS.flushesPerWindow} Flush messages are processed every 60 seconds; this one was not. The text stays buffered.`,
      );
    }
    this.flushTimes.push(now);
    const text = this.pending;
    this.pending = '';
    this.commit(text);
    this.queue.push({ kind: 'flushed', id: this.sequence++ });
    this.kick();
  }

  private onClear(): void {
    this.current?.abort(new Error('cleared'));
    this.queue = [];
    this.pending = '';
    this.buffered = 0;
    this.generation++;
    this.carry = null;
    this.send({ type: 'Cleared', sequence_id: this.sequence++ });
  }

  private onClose(): void {
    void this.end(1000, 'closed by client');
  }

  private kick(): void {
    if (this.running || this.ended) return;
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      for (let item = this.queue.shift(); item && !this.ended; item = this.queue.shift()) {
        if (item.kind === 'flushed') this.send({ type: 'Flushed', sequence_id: item.id });
        else {
          const generation = this.generation;
          await this.speak(item.text);
          if (generation === this.generation) this.buffered -= item.text.length;
        }
      }
    } catch (err) {
      await this.fail(err);
    } finally {
      this.running = false;
    }
  }

  private async speak(text: string): Promise<void> {
    const { o } = this;
    const ctl = new AbortController();
    this.current = ctl;
    try {
      const stream = await o.tts.stream(
        o.auth,
        {
          requestId: `${o.requestId}.${this.utterances++}`,
          text,
          voice: o.voice.voice,
          model: o.voice.model,
          language: undefined,
          speed: o.params.speed,
          pitch: undefined,
          plainText: true,
          sampleRate: o.params.sampleRate,
        },
        ctl.signal,
        o.log,
      );
      try {
        for await (const chunk of stream.body) {
          if (ctl.signal.aborted || this.ended) break;
          this.sendAudio(chunk as Buffer);
          await this.drained(ctl.signal);
        }
      } finally {
        // Stops synthesis when the loop ended early (Clear, the socket gone); bills what was sent.
        if (!stream.body.readableEnded) {
          if (!ctl.signal.aborted) ctl.abort(new Error('session ended'));
          stream.body.destroy();
        }
      }
    } catch (err) {
      // A Clear or the end of the session is not a failure.
      if (ctl.signal.aborted || this.ended) return;
      throw err;
    } finally {
      if (this.current === ctl) this.current = null;
    }
  }

  private sendAudio(chunk: Buffer): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.o.params.encoding === 'linear16') return this.ws.send(chunk, { binary: true });
    let pcm = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = pcm.length % 2 === 1 ? Buffer.from(pcm.subarray(pcm.length - 1)) : null;
    if (this.carry) pcm = pcm.subarray(0, pcm.length - 1);
    if (pcm.length > 0) this.ws.send(compandBytes(pcm, this.o.params.encoding), { binary: true });
  }

  /** Waits while the client is behind, so synthesis (and memory) waits with it. */
  private async drained(signal: AbortSignal): Promise<void> {
    while (
      this.ws.readyState === this.ws.OPEN &&
      this.ws.bufferedAmount > SPEAK_SOCKET_LIMITS.maxBufferedAudioBytes &&
      !signal.aborted &&
      !this.ended
    ) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private async fail(err: unknown): Promise<void> {
    const apiErr = toApiError(err);
    const level = logLevelOf(apiErr);
    if (level !== 'info') this.o.log[level]({ err, code: apiErr.code }, 'speak session failed');
    const body = deepgramErrorBody(apiErr, this.o.requestId, 'speak');
    this.send({ type: 'Error', description: body.err_msg, ...body });
    await this.end(apiErr.status >= 500 ? 1011 : 1008, body.err_code);
  }

  /** Ends the session once: stops speaking, closes the socket, frees the slot. */
  async end(code: number, reason: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.current?.abort(new Error('session ended'));
    this.queue = [];
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(code, reason.slice(0, 120));
    // A client that does not answer the close handshake is dropped.
    setTimeout(() => this.ws.terminate(), 2000).unref();
    this.o.onEnd();
  }
}
