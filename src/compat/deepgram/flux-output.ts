// Deepgram Flux's messages (WS /v2/listen, as @deepgram/sdk's listen.v2 socket types them) for the
// live session's events: Connected at open, TurnInfo for each turn event (src/stt/live/turns.ts:
// StartOfTurn, Update, EagerEndOfTurn, TurnResumed, EndOfTurn), ConfigureSuccess /
// ConfigureFailure, Error ({code, description}), every message with its sequence_id; the close
// frames of /v1/listen. Results and the other per-utterance events of /v1/listen are not Flux's.

import { ApiError, type ErrorCode } from '../../errors.js';
import type { SessionEnd, SessionInfo, SessionOutput, Transport } from '../../stt/live/session-output.js';
import type { TurnEvent, TurnSettings } from '../../stt/live/turns.js';
import { deepgramErrorBody } from './errors.js';

const CLOSE_FRAMES: Record<SessionEnd, [number, string]> = {
  client_closed: [1000, ''],
  shutdown: [1001, 'server shutting down'],
  idle_timeout: [1011, 'NET-0001: no audio within the timeout window'],
  invalid_audio: [1008, 'DATA-0000: the payload cannot be decoded as audio'],
  internal_error: [1011, 'INTERNAL_SERVER_ERROR: the recognizer failed'],
  insufficient_credits: [1008, 'ASR_PAYMENT_REQUIRED: the credit balance ran out'],
  max_duration: [1008, 'MAX_DURATION: the maximum session length was reached'],
  overloaded: [1013, 'SERVICE_OVERLOADED: every recognizer is busy; reconnect shortly'],
};

export class FluxOutput implements SessionOutput {
  private sequence = 0;
  private requestId = '';

  constructor(private readonly t: Transport) {}

  private send(type: string, fields: Record<string, unknown>): void {
    this.t.send({ type, request_id: this.requestId, sequence_id: this.sequence++, ...fields });
  }

  opened(info: SessionInfo): void {
    this.requestId = info.requestId;
    this.send('Connected', {});
  }

  turn(e: TurnEvent): void {
    this.send('TurnInfo', {
      event: e.event,
      turn_index: e.turnIndex,
      audio_window_start: e.start,
      audio_window_end: +e.end.toFixed(3),
      transcript: e.transcript,
      words: e.words.map((w) => ({ word: w.word, confidence: w.confidence })),
      end_of_turn_confidence: e.confidence,
      ...(e.trigger === 'client' ? { trigger: 'manual' } : {}),
    });
  }

  configured(turns: TurnSettings, keyterms: string[]): void {
    this.send('ConfigureSuccess', {
      thresholds: {
        eot_threshold: turns.eotThreshold,
        eager_eot_threshold: turns.eagerEotThreshold ?? undefined,
        eot_timeout_ms: turns.eotTimeoutMs,
      },
      keyterms,
    });
  }

  configureFailed(): void {
    this.send('ConfigureFailure', {});
  }

  speechStarted(): void {}
  results(): void {}
  utteranceEnd(): void {}
  summary(): void {}

  error(code: ErrorCode, message: string): void {
    const body = deepgramErrorBody(new ApiError(code, { message }), this.requestId);
    this.t.send({ type: 'Error', sequence_id: this.sequence++, code: body.err_code, description: message, parla_code: code });
  }

  close(why: SessionEnd): void {
    const [code, reason] = CLOSE_FRAMES[why];
    this.t.close(code, reason);
  }

  pause(): void {
    this.t.pause();
  }

  resume(): void {
    this.t.resume();
  }
}
