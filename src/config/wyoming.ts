// The Wyoming server's settings (Home Assistant's local voice protocol).

import { ConfigError, int, str, type Env } from '../domain/env-values.js';

export interface WyomingConfig {
  port: number;
  host: string;
  /**
   * The key whose account every Wyoming request is billed to (authenticated per request); null:
   * unset, then the first start's own key (src/accounts/wyoming-key.ts).
   */
  apiKey: string | null;
}

/** Null when WYOMING_PORT is unset: no Wyoming server. */
export function wyomingConfig(env: Env): WyomingConfig | null {
  if (str(env, 'WYOMING_PORT') === null) return null;
  const apiKey = str(env, 'WYOMING_API_KEY');
  // Wyoming carries no credentials: without a key there is no account to bill, so refuse to start.
  // Unset: the key the first start makes for the demo account (src/accounts/wyoming-key.ts).
  if (apiKey !== null && !/^svc_(live|test)_/.test(apiKey))
    throw new ConfigError('WYOMING_API_KEY must be a Parla API key (svc_live_... or svc_test_...)');
  return { port: int(env, 'WYOMING_PORT', 10300, 0, 65535), host: str(env, 'WYOMING_HOST') ?? '127.0.0.1', apiKey };
}
