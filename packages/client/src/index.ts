export { ParlaClient, type ParlaClientOptions, type AudioInput } from './client.js';
export { ParlaError, type ParlaErrorCode, type ParlaErrorDetails } from './errors.js';
export { retryDelay, type RetryOptions, type RetryEnvironment } from './retry.js';
export { RealtimeConnection, type RealtimeOptions, type RealtimeResult, type RealtimeEvents } from './realtime.js';
export type * from './types.js';
