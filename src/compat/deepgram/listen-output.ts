// Deepgram's live messages (WS /v1/listen, as @deepgram/sdk's ListenV1Socket parses them) for the
// protocol-neutral events of Parla's live session (src/stt/live/session-output.ts): Results with
// Deepgram's metadata, SpeechStarted (vad_events), UtteranceEnd (utterance_end_ms), the closing
// Metadata, and Deepgram's close frames (1011 NET-0001 for the idle timeout, 1008 DATA-0000 for
// undecodable audio). Errors inside a stream are also told as a message in Deepgram's error body
// ({type: "Error", err_code, err_msg, request_id}) before any close (docs/compatibility.md).

import { createHash, type Hash } from 'node:crypto';
import { ApiError, type ErrorCode } from '../../errors.js';
import { VERSION } from '../../routes/health.js';
import type { LiveResult, SessionEnd, SessionInfo, SessionOutput, SessionSummary } from '../../stt/live/session-output.js';
import type { Transport } from '../../stt/live/session-output.js';
import { deepgramErrorBody } from './errors.js';
import type { RedactOptions } from '../../stt/redact.js';
import { LiveRedactor } from '../../stt/live/redact-result.js';

export interface ListenOutputOptions {
  vadEvents: boolean;
  utteranceEnd: boolean;
  /** redact / profanity_filter: finals redacted, interim results withheld (as Deepgram documents). */
  redaction?: RedactOptions;
}

/** The close frame Deepgram's clients see for each way a stream ends (reasons stay under 123 bytes). */
const CLOSE_FRAMES: Record<SessionEnd, [number, string]> = {
  client_closed: [1000, ''],
  shutdown: [1001, 'server shutting down'],
  idle_timeout: [1011, 'NET-0001: no audio or KeepAlive within the timeout window'],
  invalid_audio: [1008, 'DATA-0000: the payload cannot be decoded as audio'],
  internal_error: [1011, 'INTERNAL_SERVER_ERROR: the recognizer failed'],
  insufficient_credits: [1008, 'ASR_PAYMENT_REQUIRED: the credit balance ran out'],
  max_duration: [1008, 'MAX_DURATION: the maximum session length was reached'],
  // Deepgram documents no code for it; RFC 6455's "Try Again Later", as the native protocol.
  overloaded: [1013, 'SERVICE_OVERLOADED: every recognizer is busy; reconnect shortly'],
};

/** A stable UUID-shaped id for a model and the engine serving it (Deepgram's model_uuid). */
function modelUuid(model: string, engine: string): string {
  const h = createHash('sha1').update(`parla:${model}:${engine}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export class ListenOutput implements SessionOutput {
  private info: SessionInfo | null = null;
  private readonly created = new Date().toISOString();
  /** sha256 of the audio bytes received, for the closing Metadata. */
  private readonly audio: Hash = createHash('sha256');
  /** The digest once taken: a Hash is finished by digest(), and frames still arrive until the client reads the close. */
  private sha256: string | null = null;
  private modelInfo = { name: '', version: VERSION, arch: '' };
  private uuid = '';
  private readonly redactor: LiveRedactor;

  constructor(
    private readonly t: Transport,
    private readonly o: ListenOutputOptions,
  ) {
    this.redactor = new LiveRedactor(o.redaction);
  }

  /** Each binary frame as received, for the sha256 in the closing Metadata. */
  audioReceived(bytes: Buffer): void {
    // After the closing Metadata the stream is over: a client still flushing its microphone (or
    // sending after CloseStream) must not reach the finished Hash (ERR_CRYPTO_HASH_FINALIZED, issue 30).
    if (this.sha256 === null) this.audio.update(bytes);
  }

  // Deepgram says nothing when a stream opens: the first message is a result or an event.
  opened(info: SessionInfo): void {
    this.info = info;
    this.modelInfo = { name: info.params.model, version: VERSION, arch: info.engine };
    this.uuid = modelUuid(info.params.model, info.engine);
  }

  speechStarted(timestamp: number): void {
    if (this.o.vadEvents) this.t.send({ type: 'SpeechStarted', channel: [0, 1], timestamp });
  }

  results(r: LiveResult): void {
    const shown = this.redactor.apply(r);
    if (!shown) return;
    r = shown;
    this.t.send({
      type: 'Results',
      channel_index: [0, 1],
      duration: r.duration,
      start: r.start,
      is_final: r.isFinal,
      speech_final: r.speechFinal,
      channel: { alternatives: [{ transcript: r.transcript, confidence: r.confidence, words: r.words }] },
      metadata: { request_id: this.info?.requestId, model_info: this.modelInfo, model_uuid: this.uuid },
      from_finalize: r.fromFinalize,
    });
  }

  utteranceEnd(lastWordEnd: number): void {
    if (this.o.utteranceEnd) this.t.send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastWordEnd });
  }

  /** Deepgram's answer to a Configure (exactly one per message): the keyterms in effect. */
  configured(keyterms: readonly string[]): void {
    this.t.send({ type: 'ConfigureSuccess', request_id: this.info?.requestId, keyterms: [...keyterms] });
  }

  configureFailed(description: string): void {
    this.t.send({ type: 'ConfigureFailure', request_id: this.info?.requestId, description });
  }

  error(code: ErrorCode, message: string): void {
    this.t.send({ type: 'Error', ...deepgramErrorBody(new ApiError(code, { message }), this.info?.requestId ?? '') });
  }

  summary(s: SessionSummary): void {
    this.t.send({
      type: 'Metadata',
      transaction_key: 'deprecated',
      request_id: this.info?.requestId,
      sha256: (this.sha256 ??= this.audio.digest('hex')),
      created: this.created,
      duration: s.duration,
      channels: 1,
      models: [this.uuid],
      model_info: { [this.uuid]: this.modelInfo },
    });
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
