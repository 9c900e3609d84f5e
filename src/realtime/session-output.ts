// What a live session tells its client, protocol-neutral: the session (session.ts) decides what
// happens (results, speech onsets, utterance ends, errors, the end and why); a protocol renders it
// as its own messages and close codes. Two protocols share the one session: the native one
// (native-output.ts, docs/realtime.md) and Deepgram's /v1/listen (src/compat/deepgram/listen-output.ts).

import type { ErrorCode } from '../errors.js';
import type { RealtimeParams } from './params.js';

/** What the session knows about itself when it opens (for a protocol's opening message). */
export interface SessionInfo {
  requestId: string;
  params: RealtimeParams;
  language: string;
  /** Id of the engine serving the stream. */
  engine: string;
}

export interface LiveWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
  punctuated_word: string;
}

/** A recognition result on the stream's timeline (seconds from the first audio byte). */
export interface LiveResult {
  start: number;
  duration: number;
  isFinal: boolean;
  speechFinal: boolean;
  fromFinalize: boolean;
  transcript: string;
  confidence: number;
  words: LiveWord[];
}

/** What the stream cost, told once at its end. */
export interface SessionSummary {
  /** Seconds of audio received. */
  duration: number;
  billedSeconds: number;
  credits: number;
  utterances: number;
}

/** Why a session ended; each protocol has its own close code and reason for each. */
export type SessionEnd =
  | 'client_closed' // CloseStream, or the client closed the socket
  | 'shutdown'
  | 'invalid_audio'
  | 'internal_error'
  | 'insufficient_credits'
  | 'idle_timeout'
  | 'max_duration';

export interface SessionOutput {
  opened(info: SessionInfo): void;
  speechStarted(timestamp: number): void;
  results(r: LiveResult): void;
  utteranceEnd(lastWordEnd: number): void;
  /** A fault the client should hear about (the stream may go on or end, as the session decides). */
  error(code: ErrorCode, message: string): void;
  /** The last message, after the last result, when the client is still there. */
  summary(s: SessionSummary): void;
  close(why: SessionEnd): void;
  /** Stop / resume reading from the client (backpressure). */
  pause(): void;
  resume(): void;
}
