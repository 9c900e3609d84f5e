// The live streams' settings: the native real-time server's address and TLS, and the session
// limits every live protocol applies.

import { ConfigError, int, str, type Env } from '../domain/env-values.js';

export interface RealtimeSettings {
  realtimePort: number;
  realtimeHost: string;
  tlsCertPath: string | null;
  tlsKeyPath: string | null;
  /** Real-time streams: maximum session length in seconds. */
  realtimeMaxSessionSeconds: number;
  /** No audio and no KeepAlive for this long closes a live stream, in every protocol (REALTIME_IDLE_TIMEOUT_SECONDS). */
  realtimeIdleTimeoutSeconds: number;
  /**
   * A live stream gives its recognizer back after this long without audio (KeepAlive does not
   * count) and takes one again when audio resumes (REALTIME_RECOGNIZER_IDLE_SECONDS).
   */
  realtimeRecognizerIdleSeconds: number;
}

export function realtimeSettings(env: Env): RealtimeSettings {
  const tlsCertPath = str(env, 'TLS_CERT_PATH');
  const tlsKeyPath = str(env, 'TLS_KEY_PATH');
  if ((tlsCertPath === null) !== (tlsKeyPath === null)) throw new ConfigError('TLS_CERT_PATH and TLS_KEY_PATH go together');
  return {
    realtimePort: int(env, 'REALTIME_PORT', 8443, 0, 65535),
    realtimeHost: str(env, 'REALTIME_HOST') ?? str(env, 'HOST') ?? '127.0.0.1',
    tlsCertPath,
    tlsKeyPath,
    realtimeMaxSessionSeconds: int(env, 'REALTIME_MAX_SESSION_SECONDS', 3600, 10, 86400),
    realtimeIdleTimeoutSeconds: int(env, 'REALTIME_IDLE_TIMEOUT_SECONDS', 10, 1, 3600),
    realtimeRecognizerIdleSeconds: int(env, 'REALTIME_RECOGNIZER_IDLE_SECONDS', 2, 1, 3600),
  };
}
