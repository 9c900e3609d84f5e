// OpenAI Realtime transcription events (GA names and fields, as the `openai` package's
// RealtimeServerEvent types them) for the protocol-neutral events of Parla's live session
// (src/realtime/session-output.ts). An audio item is born when speech starts (server_vad) or when
// the client commits (turn_detection null): `input_audio_buffer.speech_started` / `.speech_stopped`
// / `.committed`, `conversation.item.added` and `.done`; its text comes with the session's final
// result as one `conversation.item.input_audio_transcription.delta` (append-only: the whole
// text, content_index 0) and `.completed` (with `usage` in seconds of audio), or `.failed` when the
// recognizer failed. Items complete in the order they were committed (the session recognizes in order).

import { randomBytes } from 'node:crypto';
import type { ErrorCode } from '../../../errors.js';
import { ApiError } from '../../../errors.js';
import type { LiveResult, SessionEnd, SessionOutput, SessionSummary, Transport } from '../../../stt/live/session-output.js';
import { openAiErrorBody } from '../errors.js';

/** Close frames per way a session ends (OpenAI documents none; these follow the WebSocket codes' meanings). */
const CLOSE_FRAMES: Record<SessionEnd, [number, string]> = {
  client_closed: [1000, ''],
  shutdown: [1001, 'server shutting down'],
  idle_timeout: [1000, 'idle timeout'],
  invalid_audio: [1007, 'invalid audio'],
  internal_error: [1011, 'internal error'],
  insufficient_credits: [1008, 'insufficient_quota'],
  max_duration: [1000, 'maximum session length reached'],
  // Only a session that gives its recognizer back can meet this; this socket keeps its own.
  overloaded: [1013, 'every recognizer is busy'],
};

/** Said before the close frame for the ends the session itself does not report as an error. */
const END_MESSAGES: Partial<Record<SessionEnd, string>> = {
  idle_timeout: 'The session was idle (no event) for too long and is closed.',
  max_duration: 'The session reached its maximum length and is closed.',
};

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

interface Item {
  id: string;
  /** Seconds of audio in the item (usage). */
  seconds: number;
}

/** Seconds of audio the client has appended so far (the session's timeline, as sent). */
export interface AudioMeter {
  appended(): number;
}

export class RealtimeTranscriptionOutput implements SessionOutput {
  /** The item whose speech started but which is not committed yet (server_vad). */
  private speaking: string | null = null;
  /** Committed items awaiting their transcript, oldest first. */
  private readonly pending: Item[] = [];
  private previousItemId: string | null = null;
  /** Where the last item ended (or the buffer was cleared) on the timeline, in seconds. */
  private lastEnd = 0;

  constructor(
    private readonly t: Transport,
    private readonly meter: AudioMeter,
    private readonly vad: () => { prefixPaddingMs: number; silenceMs: number } | null,
  ) {}

  private send(type: string, fields: Record<string, unknown> = {}): void {
    this.t.send({ type, event_id: newId('event'), ...fields });
  }

  /** The session was opened at the upgrade; session.created is the edge's (it knows the config). */
  opened(): void {}

  speechStarted(timestamp: number): void {
    const vad = this.vad();
    if (!vad || this.speaking) return;
    this.speaking = newId('item');
    this.send('input_audio_buffer.speech_started', {
      audio_start_ms: Math.max(0, Math.round(timestamp * 1000) - vad.prefixPaddingMs),
      item_id: this.speaking,
    });
  }

  /** The client committed: the item exists from now on, its text comes with the Finalize's result. */
  commit(): void {
    this.pending.push(this.announce(null));
  }

  /** Seconds of audio appended and not yet in an item (or cleared). */
  buffered(): number {
    return Math.max(0, this.meter.appended() - this.lastEnd);
  }

  /** The committed item's events; `audioEndMs` when the VAD ended the speech. */
  private announce(audioEndMs: number | null): Item {
    const id = this.speaking ?? newId('item');
    if (audioEndMs !== null) this.send('input_audio_buffer.speech_stopped', { audio_end_ms: audioEndMs, item_id: id });
    this.speaking = null;
    const previous = this.previousItemId;
    this.previousItemId = id;
    // The item's audio: from the previous item's end to the VAD's end of speech, or to what the client appended.
    const end = audioEndMs === null ? this.meter.appended() : Math.min(audioEndMs / 1000, this.meter.appended());
    const seconds = Math.max(0, end - this.lastEnd);
    this.lastEnd = Math.max(this.lastEnd, end);
    this.send('input_audio_buffer.committed', { previous_item_id: previous, item_id: id });
    const item = {
      id,
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'user',
      content: [{ type: 'input_audio', transcript: null }],
    };
    this.send('conversation.item.added', { previous_item_id: previous, item });
    this.send('conversation.item.done', { previous_item_id: previous, item });
    return { id, seconds };
  }

  /** The client cleared the buffer: speech that had started no longer makes an item. */
  cleared(): void {
    this.speaking = null;
    this.lastEnd = this.meter.appended();
    this.send('input_audio_buffer.cleared');
  }

  results(r: LiveResult): void {
    if (!r.isFinal) return;
    let item: Item | undefined;
    if (r.fromFinalize) {
      // A Finalize answers the oldest commit the edge announced.
      item = this.pending.shift();
    } else {
      // The VAD ended an utterance (or the stream's end flushed one): with no text it makes no item.
      if (!r.transcript) return;
      const vad = this.vad();
      if (!this.speaking) this.speechStartedAt(r.start, vad?.prefixPaddingMs ?? 0);
      item = this.announce(Math.round((r.start + r.duration) * 1000 + (vad?.silenceMs ?? 0)));
    }
    if (!item) return;
    if (r.transcript)
      this.send('conversation.item.input_audio_transcription.delta', { item_id: item.id, content_index: 0, delta: r.transcript });
    this.send('conversation.item.input_audio_transcription.completed', {
      item_id: item.id,
      content_index: 0,
      transcript: r.transcript,
      usage: { type: 'duration', seconds: +item.seconds.toFixed(3) },
    });
  }

  private speechStartedAt(start: number, padding: number): void {
    this.speaking = newId('item');
    this.send('input_audio_buffer.speech_started', {
      audio_start_ms: Math.max(0, Math.round(start * 1000) - padding),
      item_id: this.speaking,
    });
  }

  utteranceEnd(): void {}

  error(code: ErrorCode, message: string): void {
    const err = new ApiError(code, { message });
    if (code === 'INTERNAL_ERROR' || code === 'INSUFFICIENT_CREDITS') {
      // The items waiting for text will not get it.
      for (const item of this.pending.splice(0)) {
        this.send('conversation.item.input_audio_transcription.failed', {
          item_id: item.id,
          content_index: 0,
          error: openAiErrorBody(err).error,
        });
      }
    }
    this.clientError(err);
  }

  /** An `error` event in OpenAI's shape; `eventId` is the client event that caused it. */
  clientError(err: ApiError, eventId: string | null = null, code?: string): void {
    const body = openAiErrorBody(err).error;
    this.send('error', { error: { ...body, code: code ?? body.code, event_id: eventId } });
  }

  summary(_s: SessionSummary): void {}

  close(why: SessionEnd): void {
    const said = END_MESSAGES[why];
    if (said) this.clientError(new ApiError('INVALID_REQUEST', { message: said }), null, why);
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
