// One HTTP exchange with retries: builds the request, applies the timeout, maps error bodies to
// ParlaError and follows the retry schedule of retry.ts.

import { errorFromResponse, ParlaError, parseRetryAfter } from './errors.js';
import { defaultRetryEnvironment, retryDelay, type RetryEnvironment, type RetryOptions } from './retry.js';

export interface TransportOptions {
  apiKey: string | undefined;
  baseUrl: string;
  /** Per-attempt timeout in ms (default 60 s; transcriptions of long files may need more). */
  timeoutMs: number;
  retry: RetryOptions;
  env: RetryEnvironment;
  fetch: typeof fetch;
  userAgent: string;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** Extra request headers (Idempotency-Key). */
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  /** Built anew for every attempt (a FormData body cannot be sent twice). */
  form?: () => FormData | Promise<FormData>;
  auth?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Called before each retry wait: (attempt number, delay ms, the error). */
  onRetry?: (attempt: number, delayMs: number, error: ParlaError) => void;
}

export function buildUrl(baseUrl: string, path: string, query?: RequestSpec['query']): string {
  const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

export async function send(opts: TransportOptions, spec: RequestSpec): Promise<Response> {
  const env = opts.env ?? defaultRetryEnvironment;
  for (let attempt = 0; ; attempt++) {
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(spec.signal?.reason);
    spec.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const timeout = setTimeout(
      () =>
        controller.abort(
          new ParlaError({ status: 0, code: 'TIMEOUT', message: `no response within ${spec.timeoutMs ?? opts.timeoutMs} ms` }),
        ),
      spec.timeoutMs ?? opts.timeoutMs,
    );
    let failure: ParlaError;
    try {
      const headers: Record<string, string> = {
        ...spec.headers,
        'User-Agent': opts.userAgent,
        Accept: 'application/json, audio/*, text/*',
      };
      if (spec.auth !== false) {
        if (!opts.apiKey)
          throw new ParlaError({ status: 0, code: 'AUTH_MISSING_API_KEY', message: 'No API key: pass apiKey or set PARLA_API_KEY.' });
        headers['X-API-Key'] = opts.apiKey;
      }
      let body: string | FormData | undefined;
      if (spec.json !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(spec.json);
      } else if (spec.form) {
        body = await spec.form();
      }
      const res = await opts.fetch(buildUrl(opts.baseUrl, spec.path, spec.query), {
        method: spec.method,
        headers,
        body: body ?? null,
        signal: controller.signal,
      });
      if (res.ok) return res;
      failure = await errorFromResponse(res);
      const delay = retryDelay(
        { kind: 'status', status: res.status, retryAfter: parseRetryAfter(res.headers.get('retry-after')) },
        attempt,
        opts.retry,
        env.random,
      );
      if (delay === null) throw failure;
      spec.onRetry?.(attempt + 1, delay, failure);
      await env.sleep(delay, spec.signal);
    } catch (err) {
      if (err instanceof ParlaError && err.status !== 0) throw err;
      if (err instanceof ParlaError && err.code === 'AUTH_MISSING_API_KEY') throw err;
      if (spec.signal?.aborted) throw spec.signal.reason ?? err;
      const reason = controller.signal.reason;
      failure =
        reason instanceof ParlaError
          ? reason
          : new ParlaError({ status: 0, code: 'NETWORK_ERROR', message: `request failed: ${(err as Error).message}`, cause: err });
      const delay = retryDelay({ kind: 'network' }, attempt, opts.retry, env.random);
      if (delay === null) throw failure;
      spec.onRetry?.(attempt + 1, delay, failure);
      await env.sleep(delay, spec.signal);
    } finally {
      clearTimeout(timeout);
      spec.signal?.removeEventListener('abort', onOuterAbort);
    }
  }
}
