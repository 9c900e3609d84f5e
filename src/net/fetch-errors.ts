// What the safe fetcher (safe-fetch.ts) throws. The edges and the job runner turn these into the
// API's URL_NOT_ALLOWED, URL_FETCH_FAILED and FILE_TOO_LARGE.

/** The URL or an address it leads to is refused (edge: 400 URL_NOT_ALLOWED). */
export class UrlNotAllowedError extends Error {
  readonly code = 'URL_NOT_ALLOWED';
  constructor(message: string) {
    super(message);
    this.name = 'UrlNotAllowedError';
  }
}

/** The download did not succeed: network, TLS, timeout, non-2xx, too many redirects (URL_FETCH_FAILED). */
export class UrlFetchFailedError extends Error {
  readonly code = 'URL_FETCH_FAILED';
  constructor(
    message: string,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UrlFetchFailedError';
  }
}

/**
 * The source was too slow: under the minimum rate, or past the total time. A URL_FETCH_FAILED
 * that a job does not retry: the same source would hold a runner as long again.
 */
export class DownloadTooSlowError extends UrlFetchFailedError {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadTooSlowError';
  }
}

/** More bytes than the limit (FILE_TOO_LARGE). */
export class FileTooLargeError extends Error {
  readonly code = 'FILE_TOO_LARGE';
  constructor(readonly limit: number) {
    super(`The download is larger than ${limit} bytes.`);
    this.name = 'FileTooLargeError';
  }
}

export type SafeFetchError = UrlNotAllowedError | UrlFetchFailedError | FileTooLargeError;
