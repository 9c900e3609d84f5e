// One OpenAI Realtime transcription socket after its upgrade: reads the client's events in order
// (session.update, input_audio_buffer.append / .commit / .clear), keeps the session's
// configuration (session-config.ts) and runs Parla's live session (src/realtime/session.ts) with
// OpenAI's events (output.ts). The admission (slot, credit hold, a recognizer for the model) was
// made at the upgrade; the session itself starts with the first audio, so the audio format and
// turn detection a client sets after connecting are the ones it runs with. Until then a
// session.update that changes the model, language or prompt is admitted again for them; once audio
// flows those (and the format and turn detection) are fixed and a change is refused with an error event.

import type { WebSocket } from 'ws';
import type { Services } from '../../../services.js';
import type { AuthContext } from '../../../accounts/auth-context.js';
import type { LiveStream } from '../../../stt/service.js';
import type { SttModel } from '../../../registry/model-registry.js';
import { ApiError } from '../../../errors.js';
import { toApiError } from '../../../faults/translate.js';
import { exceedsJsonDepth } from '../../../domain/json-depth.js';
import { expandG711 } from '../../../audio/g711-decode.js';
import { RealtimeSession } from '../../../stt/live/session.js';
import { transportOf } from '../../../edge/live-upgrade.js';
import type { RealtimeParams } from '../../../stt/live/params.js';
import { LIVE_SLOT_RENEW_MS } from '../../../stt/service.js';
import { applyUpdate, EAGERNESS_TURNS, FORMAT_RATE, renderSession, type TranscriptionConfig } from './session-config.js';
import { newId, RealtimeTranscriptionOutput } from './output.js';
import { decodeBase64Audio } from './base64.js';

export interface SocketDeps {
  services: Services;
  auth: AuthContext;
  requestId: string;
  config: TranscriptionConfig;
  /** The Parla model, language and keywords a configuration runs on (throws INVALID_MODEL & co.). */
  resolve(c: TranscriptionConfig): { model: SttModel; language: string | undefined; keywords: string[] };
  admit(c: TranscriptionConfig): Promise<LiveStream>;
  idleTimeoutMs: number;
  maxSessionSeconds: number;
  /** Runs once when the socket is over (the session ended, or the socket closed before one started). */
  onEnd(): void;
}

const CLIENT_EVENTS_NOT_SERVED = new Set([
  'response.create',
  'response.cancel',
  'conversation.item.create',
  'conversation.item.delete',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'output_audio_buffer.clear',
  'transcription_session.update',
]);

export class TranscriptionSocket {
  private config: TranscriptionConfig;
  private live: LiveStream | null;
  private session: RealtimeSession | null = null;
  private readonly output: RealtimeTranscriptionOutput;
  private chain: Promise<void> = Promise.resolve();
  /** Seconds of audio appended, as sent. */
  private appended = 0;
  private readonly sessionId = newId('sess');
  private readonly expiresAt: number;
  private idle: NodeJS.Timeout | null = null;
  private renew: NodeJS.Timeout;
  private done = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly d: SocketDeps,
    live: LiveStream,
  ) {
    this.live = live;
    this.config = d.config;
    this.expiresAt = Math.floor(Date.now() / 1000) + d.maxSessionSeconds;
    const meter = { appended: () => this.appended };
    // semantic_vad: no padding is asked for, and an item's audio ends with its last word.
    const vad = () => {
      const td = this.config.turnDetection;
      if (!td) return null;
      return td.type === 'server_vad'
        ? { prefixPaddingMs: td.prefix_padding_ms, silenceMs: td.silence_duration_ms }
        : { prefixPaddingMs: 0, silenceMs: 0 };
    };
    this.output = new RealtimeTranscriptionOutput(transportOf(ws), meter, vad);
    this.renew = setInterval(() => this.live?.renewSlot(), LIVE_SLOT_RENEW_MS);
    this.renew.unref();
    d.services.metrics.realtimeStreams.inc();
    ws.on('message', (data, isBinary) => {
      if (isBinary)
        return this.refuse(null, 'Audio travels in input_audio_buffer.append events (base64), not binary frames.', 'invalid_request_error');
      this.onEvent(data.toString());
    });
    ws.on('close', () => void this.finish(true));
    ws.on('error', () => void this.finish(true));
    this.send('session.created', { session: renderSession(this.sessionId, this.config, this.expiresAt) });
    this.touch();
  }

  private send(type: string, fields: Record<string, unknown>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify({ type, event_id: newId('event'), ...fields }));
  }

  private refuse(eventId: string | null, message: string, code: string, param?: string): void {
    this.output.clientError(new ApiError('INVALID_REQUEST', { message, details: param ? { field: param } : undefined }), eventId, code);
  }

  /** Before the session runs, the socket's own idle limit (the session has its own afterwards). */
  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    if (this.session || this.done) return;
    this.idle = setTimeout(() => {
      this.output.close('idle_timeout');
      void this.finish(false);
    }, this.d.idleTimeoutMs);
    this.idle.unref();
  }

  private onEvent(text: string): void {
    if (this.done) return;
    this.touch();
    let event: Record<string, unknown>;
    try {
      if (exceedsJsonDepth(text)) throw new SyntaxError('too deep');
      event = JSON.parse(text) as Record<string, unknown>;
      if (event === null || typeof event !== 'object' || Array.isArray(event)) throw new SyntaxError('not an object');
    } catch {
      return this.refuse(null, 'Events are JSON objects with a "type".', 'invalid_json');
    }
    const eventId = typeof event.event_id === 'string' ? event.event_id.slice(0, 100) : null;
    const type = event.type;
    switch (type) {
      case 'session.update':
        // In order with the audio: a re-admission pauses the socket until it is done.
        this.chain = this.chain
          .then(() => this.update(event.session, eventId))
          .catch((err: unknown) => this.output.clientError(toApiError(err), eventId));
        return;
      case 'input_audio_buffer.append':
        return this.inOrder(() => this.append(event.audio, eventId), eventId);
      case 'input_audio_buffer.commit':
        return this.inOrder(() => this.commit(eventId), eventId);
      case 'input_audio_buffer.clear':
        return this.inOrder(() => {
          this.session?.clear();
          this.output.cleared();
        }, eventId);
      default:
        if (typeof type === 'string' && CLIENT_EVENTS_NOT_SERVED.has(type)) {
          return this.refuse(
            eventId,
            `${type} is not served: this is a transcription session (session.type "transcription").`,
            'invalid_request_error',
            'type',
          );
        }
        return this.refuse(
          eventId,
          `Unknown event type ${typeof type === 'string' ? JSON.stringify(type.slice(0, 64)) : typeof type}; a transcription session takes session.update and input_audio_buffer.append, .commit and .clear.`,
          'invalid_event',
          'type',
        );
    }
  }

  /** After any session.update still being applied (events keep their order). */
  private inOrder(job: () => void, eventId: string | null): void {
    void this.chain.then(job).catch((err: unknown) => this.output.clientError(toApiError(err), eventId));
  }

  private async update(raw: unknown, eventId: string | null): Promise<void> {
    let next: TranscriptionConfig;
    try {
      next = applyUpdate(this.config, raw);
      this.d.resolve(next);
    } catch (err) {
      return this.output.clientError(toApiError(err), eventId, 'invalid_value');
    }
    const c = this.config;
    const recognizer = next.model !== c.model || next.language !== c.language || next.prompt !== c.prompt;
    if (this.session) {
      const fixed = recognizer || next.format !== c.format || JSON.stringify(next.turnDetection) !== JSON.stringify(c.turnDetection);
      if (fixed) {
        return this.refuse(
          eventId,
          'The audio format, transcription model, language, prompt and turn detection are fixed once audio has been appended; open a new session to change them.',
          'invalid_value',
          'session.audio.input',
        );
      }
    } else if (recognizer) {
      // Not yet streaming: give the recognizer back and be admitted for the new model and language.
      this.ws.pause();
      try {
        await this.live?.abandon();
        this.live = null;
        this.live = await this.d.admit(next);
      } catch (err) {
        this.output.clientError(toApiError(err), eventId);
        this.output.close(toApiError(err).category === 'credit' ? 'insufficient_credits' : 'internal_error');
        return this.finish(false);
      } finally {
        this.ws.resume();
      }
    }
    this.config = next;
    this.send('session.updated', { session: renderSession(this.sessionId, next, this.expiresAt) });
  }

  private append(audio: unknown, eventId: string | null): void {
    if (this.done) return;
    const bytes = decodeBase64Audio(audio);
    if (typeof bytes === 'string') return this.refuse(eventId, bytes, 'invalid_value', 'audio');
    if (bytes.length === 0) return;
    const session = this.session ?? this.start();
    if (!session) return;
    const pcm = this.config.format === 'audio/pcm' ? bytes : expandG711(bytes, this.config.format === 'audio/pcmu' ? 'mulaw' : 'alaw');
    this.appended += pcm.length / 2 / FORMAT_RATE[this.config.format];
    session.onAudio(pcm);
  }

  private commit(eventId: string | null): void {
    if (this.done) return;
    // OpenAI's rule: a commit needs audio (at least 100 ms) since the last commit.
    const buffered = this.output.buffered();
    if (buffered < 0.1) {
      return this.refuse(
        eventId,
        `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${(buffered * 1000).toFixed(2)}ms of audio.`,
        'input_audio_buffer_commit_empty',
      );
    }
    this.output.commit();
    this.session!.onText('{"type":"Finalize"}');
  }

  /** The live session, from the first audio, on the configuration as it is now. */
  private start(): RealtimeSession | null {
    const live = this.live;
    if (!live) return null;
    if (this.idle) clearTimeout(this.idle);
    const c = this.config;
    const { model, language, keywords } = this.d.resolve(c);
    const params: RealtimeParams = {
      model,
      language,
      encoding: 'linear16',
      sampleRate: FORMAT_RATE[c.format],
      interimResults: false,
      // server_vad: its silence ends the utterance; semantic_vad: the turn layer's end of turn
      // does (src/stt/live/turns.ts); null: only commits do (and no VAD runs).
      endpointing: c.turnDetection?.type === 'server_vad' ? c.turnDetection.silence_duration_ms : 0,
      // No UtteranceEnd in this protocol; the session still needs a value.
      utteranceEndMs: 1000,
      punctuate: true,
      smartFormat: true,
      keywords,
    };
    this.session = new RealtimeSession(this.output, {
      requestId: this.d.requestId,
      params,
      language: live.language,
      engine: live.engine,
      stream: live.stream,
      credits: live.credits,
      idleTimeoutMs: this.d.idleTimeoutMs,
      maxSessionSeconds: Math.max(1, this.expiresAt - Math.floor(Date.now() / 1000)),
      vad: c.turnDetection !== null,
      turns: c.turnDetection?.type === 'semantic_vad' ? { ...EAGERNESS_TURNS[c.turnDetection.eagerness] } : undefined,
      onEnd: () => {
        this.live = null;
        void live.releaseSlot();
        void this.finish(false);
      },
    });
    void this.session.start();
    return this.session;
  }

  /** Ends the socket (shutdown), or what is left of it once the session or the client is gone. */
  async end(why: 'shutdown'): Promise<void> {
    if (this.session) return this.session.end(why);
    this.output.close(why);
    return this.finish(false);
  }

  private async finish(clientGone: boolean): Promise<void> {
    if (this.session && !this.done && clientGone) return this.session.end('client_closed', { clientGone: true });
    if (this.done) return;
    this.done = true;
    if (this.idle) clearTimeout(this.idle);
    clearInterval(this.renew);
    this.d.services.metrics.realtimeStreams.dec();
    // No session ran: nothing was streamed, nothing is billed.
    if (!this.session) {
      const live = this.live;
      this.live = null;
      await live?.abandon().catch(() => undefined);
    }
    if (!clientGone && this.ws.readyState === this.ws.OPEN && !this.session) this.ws.close(1000);
    this.d.onEnd();
  }
}
