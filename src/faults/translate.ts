// The one translation of what the layers below throw into the API's errors, for every edge (the
// HTTP error handler and the WebSocket upgrade) and the job runner (a job's error object):
// services throw ApiError as is, an unreachable store is 503 CREDIT_CHECK_FAILED (decisions #34),
// an engine failure 500 ENGINE_ERROR, a full worker pool or an overloaded engine 503
// SERVICE_OVERLOADED (decisions #31), the safe fetcher's refusals and failures URL_NOT_ALLOWED,
// URL_FETCH_FAILED and FILE_TOO_LARGE. Engines, the pool, the store and the fetcher know nothing
// of HTTP; only this file knows what their errors mean to a client.

import { ApiError } from '../errors.js';
import { EngineError } from '../engines/engine.js';
import { EngineOverloadedError, PoolOverloadedError } from '../domain/overload.js';
import { StoreUnavailableError } from '../storage/store.js';
import { EncoderError } from '../audio/ffmpeg-encoder.js';
import { FileTooLargeError, UrlFetchFailedError, UrlNotAllowedError } from '../net/fetch-errors.js';

export interface ErrorAudience {
  /**
   * The caller is the dashboard (its pages, or its playground calling the API with the session
   * cookie): an outage then speaks of the store, since no balance is being checked.
   */
  dashboard?: boolean;
}

const API_STORE_MESSAGE = 'The credit balance could not be verified because the account store is unreachable.';
const DASHBOARD_STORE_MESSAGE = 'The account store is unreachable; the dashboard works again as soon as it is back.';

/** The API error for an error of the safe fetcher (a URL a user gave); other errors pass through. */
export function fetchErrorToApi(err: unknown): unknown {
  if (err instanceof UrlNotAllowedError)
    return new ApiError('URL_NOT_ALLOWED', { message: `URL not allowed: ${err.message}`, details: { field: 'url' } });
  if (err instanceof UrlFetchFailedError)
    return new ApiError('URL_FETCH_FAILED', {
      message: `The audio could not be downloaded: ${err.message}`,
      details: { field: 'url', ...(err.status === null ? {} : { status: err.status }) },
    });
  if (err instanceof FileTooLargeError)
    return new ApiError('FILE_TOO_LARGE', { message: `The audio is larger than ${err.limit} bytes.`, details: { limit: err.limit } });
  return err;
}

/** The API error for an error of the layers below the edges, or null when it is none of theirs. */
export function serviceErrorToApiError(err: unknown, audience: ErrorAudience = {}): ApiError | null {
  err = fetchErrorToApi(err);
  if (err instanceof ApiError) return err;
  if (err instanceof StoreUnavailableError) {
    return new ApiError('CREDIT_CHECK_FAILED', {
      message: audience.dashboard ? DASHBOARD_STORE_MESSAGE : API_STORE_MESSAGE,
      retryAfter: 5,
      cause: err,
    });
  }
  if (err instanceof EngineError) return new ApiError('ENGINE_ERROR', { cause: err });
  // ffmpeg encoding a format no library here writes (OpenAI's opus, aac): a failure of the audio
  // path like an engine's, said as what it is.
  if (err instanceof EncoderError)
    return new ApiError('ENGINE_ERROR', { message: 'The audio encoder failed to encode the speech.', cause: err });
  if (err instanceof EngineOverloadedError)
    return new ApiError('SERVICE_OVERLOADED', { message: err.message, retryAfter: err.retryAfter, cause: err });
  if (err instanceof PoolOverloadedError)
    return new ApiError('SERVICE_OVERLOADED', { retryAfter: err.retryAfter, details: err.details, cause: err });
  return null;
}

/** As serviceErrorToApiError, with anything unknown as 500 INTERNAL_ERROR (no internals shown). */
export function toApiError(err: unknown, audience: ErrorAudience = {}): ApiError {
  return serviceErrorToApiError(err, audience) ?? new ApiError('INTERNAL_ERROR', { cause: err });
}

/**
 * How loud an answer is logged: 503 SERVICE_OVERLOADED is the service protecting itself under load
 * (decisions #31), a warning, not an error (issue 30: overload logged as errors drowned the real
 * faults); every other 5xx is a fault (error); a 4xx is the client's (info).
 */
export function logLevelOf(err: ApiError): 'info' | 'warn' | 'error' {
  if (err.code === 'SERVICE_OVERLOADED') return 'warn';
  return err.status >= 500 ? 'error' : 'info';
}
