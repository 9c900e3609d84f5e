// What a live stream is asked to do, whatever its protocol: each edge (the native socket's query,
// src/realtime/params.ts; Deepgram's, src/compat/deepgram/live-params.ts) parses its own
// parameters into these, and the session (session.ts) runs on them.

import type { SttModel } from '../../registry/model-registry.js';
import type { RedactOptions } from '../redact.js';

/** linear16: raw 16-bit little-endian mono PCM; opus: Opus in an Ogg or WebM container. */
export const REALTIME_ENCODINGS = ['linear16', 'opus'] as const;
/**
 * What a session decodes: the native socket's encodings, and `container` (Deepgram's socket without
 * `encoding`: Ogg, WebM, WAV, MP3 or FLAC, told apart by the first bytes; anything else is
 * undecodable). Not offered on the native socket, which names its encoding.
 */
export type RealtimeEncoding = (typeof REALTIME_ENCODINGS)[number] | 'container';

export interface RealtimeParams {
  model: SttModel;
  language: string | undefined;
  encoding: RealtimeEncoding;
  /** Rate of linear16 audio; opus and containers carry their own. */
  sampleRate: number;
  interimResults: boolean;
  /** Silence (ms) that ends an utterance: a final result with speech_final. */
  endpointing: number;
  /** Silence (ms) after the last word before an UtteranceEnd message. */
  utteranceEndMs: number;
  punctuate: boolean;
  smartFormat: boolean;
  keywords: string[];
  /** redact / profanity_filter on the native socket: finals redacted, interims withheld (src/stt/live/redact-result.ts). */
  redaction?: RedactOptions;
}
