// What a live session tells its client, protocol-neutral: the session (session.ts) decides what
// happens (results, speech onsets, utterance ends, errors, the end and why); a protocol renders it
// as its own messages and close codes. Two protocols share the one session: the native one
// (src/realtime/native-output.ts, docs/realtime.md) and Deepgram's /v1/listen (src/compat/deepgram/listen-output.ts).

import type { ErrorCode } from '../../errors.js';
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

/** A turn event of the session's turn layer (turns.ts). */
export type TurnEventName = 'StartOfTurn' | 'Update' | 'EagerEndOfTurn' | 'TurnResumed' | 'EndOfTurn';

export interface TurnEvent {
  event: TurnEventName;
  turnIndex: number;
  /** Seconds on the stream's timeline: where the turn's audio starts and how far it was heard. */
  start: number;
  end: number;
  transcript: string;
  words: LiveWord[];
  /** 0..1: how sure the layer is that the turn is over. */
  confidence: number;
  /** What ended the turn, for EndOfTurn: the pause, the timeout, the client (ForceEndTurn) or the stream's end. */
  trigger?: 'pause' | 'timeout' | 'client' | 'close';
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
  | 'max_duration'
  | 'overloaded'; // audio resumed after the recognizer was given back, and none freed up in time

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
  /** Turn events (turns.ts), for the protocols that ask the session for turns (Deepgram Flux). */
  turn?(e: TurnEvent): void;
  /** Stop / resume reading from the client (backpressure). */
  pause(): void;
  resume(): void;
}

/** A socket as a protocol's renderer sees it (tests use a recording one instead). */
export interface Transport {
  send(message: Record<string, unknown>): void;
  close(code: number, reason: string): void;
  /** Stop / resume reading from the client (backpressure). */
  pause(): void;
  resume(): void;
}
