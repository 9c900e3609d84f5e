// Speech-to-text's settings: the PocketSphinx decoders, long recordings in pieces, and the decoder
// processes with the caps on what one request decodes.

import { bool, ConfigError, int, str, type Env } from '../domain/env-values.js';

/** How a long recording is cut into pieces recognized in parallel (src/stt/long-audio/). */
export interface SttLongConfig {
  /** PARLA_STT_PARALLEL: false decodes every recording in one pass on one decoder. */
  parallel: boolean;
  /** Recordings longer than this many seconds are cut (PARLA_STT_LONG_SECONDS). */
  thresholdSeconds: number;
  /** Target length of a piece in seconds (PARLA_STT_PIECE_SECONDS). */
  pieceSeconds: number;
  /** PARLA_STT_CUT_VAD: webrtc (default) WebRTC's VAD finds the pauses; silero Silero's when it serves (PARLA_VAD) (decision #72). */
  cutVad: 'silero' | 'webrtc';
}

export interface DecodeConfig {
  /** Longest audio one request or job may carry, seconds (PARLA_STT_MAX_AUDIO_SECONDS); over it, 400 AUDIO_TOO_LONG. */
  maxAudioSeconds: number;
  /** Decoder processes at once (PARLA_DECODE_PROCESSES, default the worker thread count). */
  processes: number;
  /** Uploads of one account allowed to wait for a decoder process (PARLA_DECODE_ACCOUNT_QUEUE); null: half of PARLA_QUEUE_MAX (decision #58). */
  accountQueue: number | null;
  /** One decoder process's resident-memory bound, MB (PARLA_DECODE_MEMORY_MB). */
  memoryMb: number;
  /** One decoder process's V8 heap bound, MB (PARLA_DECODE_HEAP_MB). */
  heapMb: number;
  /** One decode's wall-time bound, seconds (PARLA_DECODE_TIMEOUT_SECONDS). */
  timeoutSeconds: number;
}

export interface SttSettings {
  /** PocketSphinx decoders kept warm per settings profile (default: number of cores). */
  sttDecoders: number;
  /** Create each profile's first decoder at start, or (default, decision #69) on first use. */
  sttPreload: boolean;
  /** Longest wait in line for a free PocketSphinx decoder before 503 SERVICE_OVERLOADED (PARLA_STT_DECODER_WAIT_SECONDS). */
  sttDecoderWaitSeconds: number;
  /** Long recordings in pieces recognized in parallel (docs/stt.md "Long recordings"). */
  sttLong: SttLongConfig;
  /** Decoding uploads in processes of their own, and the caps on what one request decodes (decision #42). */
  decode: DecodeConfig;
}

export function sttSettings(env: Env, cores: number, workerThreads: number): SttSettings {
  return {
    sttDecoders: int(env, 'PARLA_STT_DECODERS', cores, 1, 64),
    sttPreload: bool(env, 'PARLA_STT_PRELOAD', false),
    sttDecoderWaitSeconds: int(env, 'PARLA_STT_DECODER_WAIT_SECONDS', 30, 1, 600),
    sttLong: {
      parallel: bool(env, 'PARLA_STT_PARALLEL', true),
      thresholdSeconds: int(env, 'PARLA_STT_LONG_SECONDS', 60, 10, 86400),
      pieceSeconds: int(env, 'PARLA_STT_PIECE_SECONDS', 30, 5, 600),
      cutVad: cutVad(env),
    },
    decode: {
      // 4 hours: far above a 25 MB upload of speech at ordinary bit rates, and a bound for jobs.
      maxAudioSeconds: int(env, 'PARLA_STT_MAX_AUDIO_SECONDS', 14400, 1, 604800),
      processes: int(env, 'PARLA_DECODE_PROCESSES', workerThreads, 1, 256),
      accountQueue: (env.PARLA_DECODE_ACCOUNT_QUEUE ?? '').trim() === '' ? null : int(env, 'PARLA_DECODE_ACCOUNT_QUEUE', 1, 1, 100000),
      memoryMb: int(env, 'PARLA_DECODE_MEMORY_MB', 1024, 64, 1048576),
      heapMb: int(env, 'PARLA_DECODE_HEAP_MB', 128, 16, 65536),
      timeoutSeconds: int(env, 'PARLA_DECODE_TIMEOUT_SECONDS', 120, 1, 86400),
    },
  };
}

function cutVad(env: Env): 'silero' | 'webrtc' {
  const raw = (str(env, 'PARLA_STT_CUT_VAD') ?? 'webrtc').toLowerCase();
  if (raw !== 'silero' && raw !== 'webrtc') throw new ConfigError(`PARLA_STT_CUT_VAD must be silero or webrtc, got "${raw}"`);
  return raw;
}
