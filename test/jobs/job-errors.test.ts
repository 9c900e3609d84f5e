// What a failed run shows and whether it is tried again (src/jobs/runner.ts jobError, docs/jobs.md "Failures").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobError } from '../../src/jobs/runner.js';
import { DownloadTooSlowError, FileTooLargeError, UrlFetchFailedError, UrlNotAllowedError } from '../../src/net/safe-fetch.js';
import { StoreUnavailableError } from '../../src/storage/store.js';
import { ApiError } from '../../src/errors.js';
import { PoolOverloadedError } from '../../src/domain/overload.js';

test('download, store, engine and unknown errors: the API code, and a retry only for what passes', () => {
  const seen = (err: unknown) => {
    const { error, retry } = jobError(err);
    return [error.code, retry, error.details?.status ?? null];
  };
  assert.deepEqual(seen(new UrlFetchFailedError('connection reset')), ['URL_FETCH_FAILED', true, null]);
  assert.deepEqual(seen(new UrlFetchFailedError('the server answered HTTP 503', 503)), ['URL_FETCH_FAILED', true, 503]);
  assert.deepEqual(seen(new UrlFetchFailedError('the server answered HTTP 404', 404)), ['URL_FETCH_FAILED', false, 404]);
  // A source too slow would hold a runner as long again: not retried.
  assert.deepEqual(seen(new DownloadTooSlowError('under the minimum rate')), ['URL_FETCH_FAILED', false, null]);
  assert.deepEqual(seen(new UrlNotAllowedError('10.0.0.1 is not public')), ['URL_NOT_ALLOWED', false, null]);
  assert.deepEqual(seen(new FileTooLargeError(1000)), ['FILE_TOO_LARGE', false, null]);
  assert.deepEqual(seen(new StoreUnavailableError('down')), ['CREDIT_CHECK_FAILED', true, null]);
  assert.deepEqual(seen(new PoolOverloadedError(5, { queued: 8 })), ['SERVICE_OVERLOADED', true, null]);
  assert.deepEqual(seen(new ApiError('INVALID_AUDIO', { message: 'no audio' })), ['INVALID_AUDIO', false, null]);
  assert.deepEqual(seen(new ApiError('INSUFFICIENT_CREDITS', { details: { required: 9, balance: 1 } })), [
    'INSUFFICIENT_CREDITS',
    false,
    null,
  ]);
  const internal = jobError(new TypeError('secret internals'));
  assert.deepEqual([internal.error.code, internal.retry], ['INTERNAL_ERROR', false]);
  assert.doesNotMatch(internal.error.message, /secret internals/, 'no internals in the job record');
});
