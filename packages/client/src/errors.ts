// One error class for everything the API answers with an error body (interface.md, Errors).

export type ParlaErrorCode =
  | 'AUTH_MISSING_API_KEY'
  | 'AUTH_INVALID_API_KEY'
  | 'AUTH_EXPIRED_API_KEY'
  | 'AUTH_REVOKED_API_KEY'
  | 'AUTH_DISABLED_API_KEY'
  | 'MISSING_TEXT'
  | 'TEXT_TOO_LONG'
  | 'INVALID_VOICE'
  | 'INVALID_LANGUAGE'
  | 'INVALID_MODEL'
  | 'INVALID_SPEED'
  | 'INVALID_PITCH'
  | 'INVALID_FORMAT'
  | 'INVALID_MARKUP'
  | 'INVALID_SAMPLE_RATE'
  | 'INVALID_PARAMETER'
  | 'INVALID_REQUEST'
  | 'MISSING_FILE'
  | 'FILE_TOO_LARGE'
  | 'REQUEST_TOO_LARGE'
  | 'INVALID_AUDIO'
  | 'INSUFFICIENT_CREDITS'
  | 'CREDIT_CHECK_FAILED'
  | 'RATE_LIMIT_EXCEEDED'
  | 'CONCURRENT_LIMIT'
  | 'QUOTA_EXCEEDED'
  | 'LANGUAGE_NOT_SUPPORTED'
  | 'EXPRESSION_NOT_SUPPORTED'
  | 'MODEL_ACCESS_DENIED'
  | 'VOICE_ACCESS_DENIED'
  | 'FEATURE_DISABLED'
  | 'NOT_FOUND'
  | 'INTERNAL_ERROR'
  | 'ENGINE_ERROR'
  | 'SERVICE_OVERLOADED'
  /** Client-side: the network failed or the request timed out; no response was received. */
  | 'NETWORK_ERROR'
  | 'TIMEOUT'
  /** Client-side: the real-time server's TLS certificate is not trusted (pass its certificate as the CA). */
  | 'TLS_UNTRUSTED_CERTIFICATE'
  /** The server answered with something that is not the documented error body. */
  | 'UNEXPECTED_RESPONSE';

export interface ParlaErrorDetails {
  provided?: string;
  suggestions?: string[];
  [key: string]: unknown;
}

export class ParlaError extends Error {
  readonly status: number;
  readonly code: ParlaErrorCode | (string & {});
  readonly category: string;
  readonly resolution: string;
  readonly details: ParlaErrorDetails;
  readonly requestId: string | null;
  /** Seconds from the Retry-After header, when the server sent one. */
  readonly retryAfter: number | null;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    category?: string;
    resolution?: string;
    details?: ParlaErrorDetails;
    requestId?: string | null;
    retryAfter?: number | null;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ParlaError';
    this.status = init.status;
    this.code = init.code;
    this.category = init.category ?? 'unknown';
    this.resolution = init.resolution ?? '';
    this.details = init.details ?? {};
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }

  /** "CODE: message (resolution) [request_id]": what the CLI prints. */
  describe(): string {
    const res = this.resolution ? ` ${this.resolution}` : '';
    const id = this.requestId ? ` [${this.requestId}]` : '';
    return `${this.code}: ${this.message}${res}${id}`;
  }
}

export function parseRetryAfter(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

/** Builds a ParlaError from an error response (the documented body, or whatever came back). */
export async function errorFromResponse(res: Response): Promise<ParlaError> {
  const text = await res.text().catch(() => '');
  const requestId = res.headers.get('x-request-id');
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  try {
    const body = JSON.parse(text) as {
      error?: { code?: string; message?: string; category?: string; resolution?: string; details?: ParlaErrorDetails };
      request_id?: string;
    };
    if (body && typeof body.error?.code === 'string') {
      return new ParlaError({
        status: res.status,
        code: body.error.code,
        message: body.error.message ?? res.statusText,
        category: body.error.category ?? 'unknown',
        resolution: body.error.resolution ?? '',
        details: body.error.details ?? {},
        requestId: body.request_id ?? requestId,
        retryAfter,
      });
    }
  } catch {
    // not JSON: fall through
  }
  return new ParlaError({
    status: res.status,
    code: 'UNEXPECTED_RESPONSE',
    message: `HTTP ${res.status} ${res.statusText}: ${text.slice(0, 200)}`,
    requestId,
    retryAfter,
  });
}
