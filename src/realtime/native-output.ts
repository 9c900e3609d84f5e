// The native real-time protocol's messages and close codes (docs/realtime.md) for a session's
// protocol-neutral events (src/stt/live/session-output.ts), over a tiny transport so it is tested without a socket.

import { engineFamily } from '../registry/model-registry.js';
import type { LiveResult, SessionEnd, SessionInfo, SessionOutput, SessionSummary, Transport } from '../stt/live/session-output.js';
import type { ErrorCode } from '../errors.js';
import { LiveRedactor } from '../stt/live/redact-result.js';
import type { TurnEvent } from '../stt/live/turns.js';

export const CLOSE = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  /** encoding=opus and the bytes are not Opus in Ogg/WebM. */
  INVALID_AUDIO: 1007,
  INTERNAL_ERROR: 1011,
  INSUFFICIENT_CREDITS: 4002,
  IDLE_TIMEOUT: 4008,
  MAX_DURATION: 4009,
  /** RFC 6455's "Try Again Later": no recognizer free when audio resumed (docs/realtime.md). */
  TRY_AGAIN_LATER: 1013,
} as const;

export class NativeOutput implements SessionOutput {
  private info: SessionInfo | null = null;
  private redactor = new LiveRedactor(undefined);

  constructor(
    private readonly t: Transport,
    /** For the idle close reason. */
    private readonly idleTimeoutMs = 10_000,
  ) {}

  opened(info: SessionInfo): void {
    this.info = info;
    const p = info.params;
    this.redactor = new LiveRedactor(p.redaction);
    this.t.send({
      type: 'Metadata',
      request_id: info.requestId,
      created: new Date().toISOString(),
      model: p.model,
      provider: engineFamily(p.model),
      engine: info.engine,
      language: info.language,
      encoding: p.encoding,
      sample_rate: p.encoding === 'linear16' ? p.sampleRate : null,
      channels: 1,
      interim_results: p.interimResults,
      endpointing: p.endpointing,
      utterance_end_ms: p.utteranceEndMs,
      punctuate: p.punctuate,
      smart_format: p.smartFormat,
      keywords: p.keywords,
      redact: p.redaction?.redact ?? [],
      profanity_filter: p.redaction?.profanityFilter ?? false,
    });
  }

  /** turns=true: the turn layer's events (docs/realtime.md, "Turns"), in Flux's TurnInfo shape with Parla's words. */
  turn(e: TurnEvent): void {
    this.t.send({
      type: 'TurnInfo',
      event: e.event,
      turn_index: e.turnIndex,
      start: e.start,
      end: +e.end.toFixed(3),
      transcript: e.transcript,
      words: e.words,
      end_of_turn_confidence: e.confidence,
      ...(e.trigger ? { trigger: e.trigger } : {}),
    });
  }

  speechStarted(timestamp: number): void {
    this.t.send({ type: 'SpeechStarted', channel: [0, 1], timestamp });
  }

  results(result: LiveResult): void {
    const r = this.redactor.apply(result);
    if (!r) return;
    this.t.send({
      type: 'Results',
      channel_index: [0, 1],
      start: r.start,
      duration: r.duration,
      is_final: r.isFinal,
      speech_final: r.speechFinal,
      ...(r.fromFinalize ? { from_finalize: true } : {}),
      channel: { alternatives: [{ transcript: r.transcript, confidence: r.confidence, words: r.words }] },
      metadata: { request_id: this.info?.requestId, model: this.info?.params.model },
    });
  }

  utteranceEnd(lastWordEnd: number): void {
    this.t.send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastWordEnd });
  }

  error(code: ErrorCode, message: string): void {
    this.t.send({ type: 'Error', code, message });
  }

  summary(s: SessionSummary): void {
    this.t.send({
      type: 'Summary',
      request_id: this.info?.requestId,
      duration: s.duration,
      billed_seconds: s.billedSeconds,
      credits_used: s.credits,
      utterances: s.utterances,
    });
  }

  close(why: SessionEnd): void {
    const [code, reason] = this.closeFrame(why);
    this.t.close(code, reason);
  }

  private closeFrame(why: SessionEnd): [number, string] {
    switch (why) {
      case 'client_closed':
        return [CLOSE.NORMAL, 'stream closed by client'];
      case 'shutdown':
        return [CLOSE.GOING_AWAY, 'server shutting down'];
      case 'invalid_audio':
        return [CLOSE.INVALID_AUDIO, 'audio cannot be decoded'];
      case 'internal_error':
        return [CLOSE.INTERNAL_ERROR, 'internal error'];
      case 'insufficient_credits':
        return [CLOSE.INSUFFICIENT_CREDITS, 'insufficient credits'];
      case 'idle_timeout':
        return [CLOSE.IDLE_TIMEOUT, `no audio or KeepAlive for ${+(this.idleTimeoutMs / 1000).toFixed(3)} seconds`];
      case 'max_duration':
        return [CLOSE.MAX_DURATION, 'maximum session length reached'];
      case 'overloaded':
        return [CLOSE.TRY_AGAIN_LATER, 'every recognizer is busy; reconnect shortly'];
    }
  }

  pause(): void {
    this.t.pause();
  }

  resume(): void {
    this.t.resume();
  }
}
