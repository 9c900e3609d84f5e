// Every API error code in one table: status, category, default message and resolution.
// Services throw ApiError; engines, the worker pool and the store throw their own errors, which
// src/faults/translate.ts maps to these codes. Only the edges (HTTP, WebSocket) turn them into the error
// body of docs/interface.md. docs/errors.md documents this same table.

export type ErrorCategory = 'authentication' | 'validation' | 'credit' | 'rate_limit' | 'model' | 'permission' | 'not_found' | 'server';

export interface ErrorSpec {
  status: number;
  category: ErrorCategory;
  message: string;
  resolution: string;
}

export const ERRORS = {
  // Authentication (decisions #22): all 401.
  AUTH_MISSING_API_KEY: {
    status: 401,
    category: 'authentication',
    message: 'No API key was provided.',
    resolution: 'Send your key in the X-API-Key header (or the api_key query parameter for the WebSocket).',
  },
  AUTH_INVALID_API_KEY: {
    status: 401,
    category: 'authentication',
    message: 'The API key is not recognized.',
    resolution: 'Check the key for typos or create a new one in the dashboard.',
  },
  AUTH_EXPIRED_API_KEY: {
    status: 401,
    category: 'authentication',
    message: 'The API key has expired.',
    resolution: 'Create a new API key.',
  },
  AUTH_REVOKED_API_KEY: {
    status: 401,
    category: 'authentication',
    message: 'The API key has been revoked.',
    resolution: 'Create a new API key; revoked keys cannot be restored.',
  },
  AUTH_DISABLED_API_KEY: {
    status: 401,
    category: 'authentication',
    message: 'The API key is disabled.',
    resolution: 'Ask the operator to re-enable the key, or use another key.',
  },

  // Dashboard sign-in and sessions (docs/dashboard.md).
  SIGN_IN_FAILED: {
    status: 401,
    category: 'authentication',
    message: 'The email or password is incorrect.',
    resolution: 'Check the email and password; the operator sets passwords with parla accounts set-password.',
  },
  SESSION_REQUIRED: {
    status: 401,
    category: 'authentication',
    message: 'You are not signed in to the dashboard, or the session has expired.',
    resolution: 'Sign in again at /dashboard.',
  },
  CSRF_FAILED: {
    status: 403,
    category: 'permission',
    message: "The request did not carry the session's X-CSRF-Token header, or came from another origin.",
    resolution: "Send the csrf_token from the session in the X-CSRF-Token header, from the dashboard's own origin.",
  },
  KEY_LIMIT_REACHED: {
    status: 403,
    category: 'permission',
    message: 'The account already has the most active API keys allowed in this mode.',
    resolution: 'Revoke keys that are no longer used (GET /dashboard/api/keys lists them), then create the new one.',
  },
  KEY_NOT_FOUND: {
    status: 404,
    category: 'not_found',
    message: 'The API key does not exist in this account.',
    resolution: "List the account's keys with GET /dashboard/api/keys.",
  },

  // Validation (decisions #13, #15, #18, #25).
  MISSING_TEXT: {
    status: 400,
    category: 'validation',
    message: 'The text field is required and must not be empty.',
    resolution: 'Send a non-empty text string.',
  },
  TEXT_TOO_LONG: {
    status: 413,
    category: 'validation',
    message: 'The text is too long.',
    resolution: 'Shorten the text or split it across several requests.',
  },
  INVALID_VOICE: {
    status: 400,
    category: 'validation',
    message: 'The voice was not found for this model and language.',
    resolution: 'List valid voices with GET /api/v1/voices?model=...&language=...',
  },
  INVALID_LANGUAGE: {
    status: 400,
    category: 'validation',
    message: 'The language code is not supported.',
    resolution: 'List supported languages with GET /api/v1/languages.',
  },
  INVALID_MODEL: {
    status: 400,
    category: 'validation',
    message: 'The model was not found.',
    resolution: 'List models with GET /api/v1/models.',
  },
  INVALID_SPEED: {
    status: 400,
    category: 'validation',
    message: 'speed must be a number from 0.5 to 2.0.',
    resolution: 'Send a speed between 0.5 and 2.0 (default 1.0).',
  },
  INVALID_PITCH: {
    status: 400,
    category: 'validation',
    message: 'pitch must be a number from -20 to +20 semitones.',
    resolution: 'Send a pitch between -20 and 20 (default 0).',
  },
  INVALID_FORMAT: {
    status: 400,
    category: 'validation',
    message: 'The format is not supported; use wav, mp3, ogg or flac.',
    resolution: 'Send one of the supported formats.',
  },
  INVALID_MARKUP: {
    status: 400,
    category: 'validation',
    message: 'The text contains malformed markup.',
    resolution: 'Use only the documented break and expression tags, properly closed.',
  },
  INVALID_SAMPLE_RATE: {
    status: 400,
    category: 'validation',
    message: 'sample_rate must be one of 8000, 16000, 22050, 24000, 44100, 48000.',
    resolution: 'Send a supported sample rate.',
  },
  INVALID_PARAMETER: {
    status: 400,
    category: 'validation',
    message: 'A parameter is invalid.',
    resolution: 'Check the parameter against the API reference at /docs.',
  },
  INVALID_REQUEST: {
    status: 400,
    category: 'validation',
    message: 'The request body could not be parsed.',
    resolution: 'Send a well-formed body with the documented Content-Type.',
  },
  MISSING_FILE: {
    status: 400,
    category: 'validation',
    message: 'No audio file was uploaded.',
    resolution: 'Send the audio in the multipart field "file".',
  },
  FILE_TOO_LARGE: {
    status: 413,
    category: 'validation',
    message: 'The uploaded file is larger than 25 MB.',
    resolution: 'Compress or split the audio into files of at most 25 MB.',
  },
  REQUEST_TOO_LARGE: {
    status: 413,
    category: 'validation',
    message: 'The request body is too large.',
    resolution: 'Send a smaller request body.',
  },
  // Text-to-speech: the audio a text would make; speech-to-text: an upload's length (decision #42).
  AUDIO_TOO_LONG: {
    status: 400,
    category: 'validation',
    message: 'The audio is longer than one request may produce or carry.',
    resolution:
      'Text-to-speech: use fewer or shorter break and expression tags, or split the text across several requests. Speech-to-text: split the recording into parts of at most PARLA_STT_MAX_AUDIO_SECONDS (4 hours by default).',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    category: 'validation',
    message: 'The Idempotency-Key was already used with a different request body.',
    resolution: 'Send the same body to replay the request, or use a new Idempotency-Key for a new request.',
  },
  URL_NOT_ALLOWED: {
    status: 400,
    category: 'validation',
    message: 'The audio URL is not allowed: only http(s) URLs without credentials that resolve to public addresses may be fetched.',
    resolution: 'Use a public http(s) URL, or ask the operator to allow the host (PARLA_FETCH_ALLOW_HOSTS).',
  },
  URL_FETCH_FAILED: {
    status: 422,
    category: 'validation',
    message: 'The audio could not be downloaded from the URL.',
    resolution: 'Check that the URL answers 200 with the audio within the time limits, then submit a new job.',
  },
  INVALID_AUDIO: {
    status: 422,
    category: 'validation',
    message: 'The audio file could not be decoded.',
    resolution: 'Send WAV, MP3, FLAC, Ogg (Vorbis/Opus), WebM/Opus or M4A/AAC audio.',
  },

  // Credits and quota (decisions #27, #29, #34).
  INSUFFICIENT_CREDITS: {
    status: 402,
    category: 'credit',
    message: 'Not enough credits for this request.',
    resolution: 'Add credits to the account or send a shorter request.',
  },
  CREDIT_CHECK_FAILED: {
    status: 503,
    category: 'credit',
    message: 'The credit balance could not be verified.',
    resolution: 'Retry after the number of seconds in Retry-After.',
  },

  // Limits (decisions #26, #29).
  RATE_LIMIT_EXCEEDED: {
    status: 429,
    category: 'rate_limit',
    message: 'Too many requests.',
    resolution: 'Retry after the number of seconds in Retry-After.',
  },
  CONCURRENT_LIMIT: {
    status: 429,
    category: 'rate_limit',
    message: 'Too many concurrent requests for this account.',
    resolution: 'Wait for a running request to finish, then retry after Retry-After seconds.',
  },
  QUOTA_EXCEEDED: {
    status: 429,
    category: 'rate_limit',
    message: 'The monthly character quota would be exceeded.',
    resolution: 'Wait for the next period (Retry-After) or upgrade the plan.',
  },

  // Model capabilities.
  LANGUAGE_NOT_SUPPORTED: {
    status: 400,
    category: 'model',
    message: 'The language is not supported by the chosen model.',
    resolution: "List the model's languages with GET /api/v1/languages?model=...",
  },
  EXPRESSION_NOT_SUPPORTED: {
    status: 400,
    category: 'model',
    message: 'Expression and break tags are supported by Aura models only.',
    resolution: 'Remove the tags or use an Aura model.',
  },

  // Permissions (decisions #32, #33).
  MODEL_ACCESS_DENIED: {
    status: 403,
    category: 'permission',
    message: 'The plan does not include this model.',
    resolution: 'Upgrade the plan or choose a model included in it.',
  },
  VOICE_ACCESS_DENIED: {
    status: 403,
    category: 'permission',
    message: 'This premium voice is not included in the plan.',
    resolution: 'Upgrade to pro or enterprise, or choose a standard voice.',
  },
  FEATURE_DISABLED: {
    status: 403,
    category: 'permission',
    message: 'This feature is disabled for the account.',
    resolution: 'Ask the operator to enable the feature.',
  },

  // Routing and server.
  NOT_FOUND: {
    status: 404,
    category: 'not_found',
    message: 'The resource or endpoint does not exist.',
    resolution: 'Check the path and method against the API reference at /docs.',
  },
  INTERNAL_ERROR: {
    status: 500,
    category: 'server',
    message: 'An internal error occurred.',
    resolution: 'Retry with exponential backoff; report the request_id if it persists.',
  },
  ENGINE_ERROR: {
    status: 500,
    category: 'server',
    message: 'The speech engine failed to process the request.',
    resolution: 'Retry with exponential backoff; report the request_id if it persists.',
  },
  SERVICE_OVERLOADED: {
    status: 503,
    category: 'server',
    message: 'The service is temporarily overloaded.',
    resolution: 'Retry after the number of seconds in Retry-After.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorDetails {
  provided?: string;
  suggestions?: string[];
  field?: string;
  [key: string]: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly category: ErrorCategory;
  readonly resolution: string;
  readonly details: ErrorDetails;
  /** Seconds for the Retry-After header (429 and 503). */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    opts: { message?: string; details?: ErrorDetails; retryAfter?: number; resolution?: string; cause?: unknown } = {},
  ) {
    const spec: ErrorSpec = ERRORS[code];
    super(opts.message ?? spec.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = spec.status;
    this.category = spec.category;
    this.resolution = opts.resolution ?? spec.resolution;
    this.details = opts.details ?? {};
    this.retryAfter = opts.retryAfter ?? (spec.status === 429 || spec.status === 503 ? 1 : undefined);
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

export interface ErrorBody {
  success: false;
  error: {
    code: string;
    message: string;
    category: string;
    resolution: string;
    details: ErrorDetails;
  };
  request_id: string;
  timestamp: number;
}

/** The error body of docs/interface.md. `timestamp` is Unix seconds with fraction. */
export function errorBody(err: ApiError, requestId: string): ErrorBody {
  return {
    success: false,
    error: {
      code: err.code,
      message: err.message,
      category: err.category,
      resolution: err.resolution,
      details: err.details,
    },
    request_id: requestId,
    timestamp: Date.now() / 1000,
  };
}
