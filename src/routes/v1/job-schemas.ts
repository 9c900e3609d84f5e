// The OpenAPI schemas of the job routes (jobs.ts): the job as the API shows it, its envelopes, and
// the documentation of POST /stt/jobs and GET .../result.

import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.js';
import { JOB_STATUSES } from '../../jobs/queue.js';

export const JobSchema = Type.Object(
  {
    id: Type.String(),
    status: Type.Union(JOB_STATUSES.map((s) => Type.Literal(s))),
    model: Type.Union([Type.String(), Type.Null()]),
    language: Type.Union([Type.String(), Type.Null()]),
    response_format: Type.Union([Type.String(), Type.Null()]),
    progress: Type.Union([Type.Number(), Type.Null()], { description: '0-1 while running, 1 when completed.' }),
    created_at: Type.String({ format: 'date-time' }),
    started_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    attempts: Type.Integer({ description: 'Runs started; more than 1 when a node died and another took the job over.' }),
    credits_used: Type.Union([Type.Integer(), Type.Null()]),
    source: Type.Object(
      {},
      { additionalProperties: true, description: '{"type": "url", "url"} or {"type": "upload", "filename", "bytes"}.' },
    ),
    callback_url: Type.Union([Type.String(), Type.Null()]),
    zero_retention: Type.Boolean(),
    result: Type.Optional(
      Type.Unknown({
        description: "When completed: the batch endpoint's result in the job's response_format (a string for text, srt and vtt).",
      }),
    ),
    result_deleted: Type.Optional(Type.Boolean()),
    error: Type.Optional(
      Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Object({}, { additionalProperties: true })) }),
    ),
    webhook: Type.Optional(
      Type.Object({
        id: Type.Union([Type.String(), Type.Null()]),
        state: Type.String({ description: 'none, pending, delivered or failed' }),
        attempts: Type.Array(
          Type.Object({
            attempt: Type.Integer(),
            at: Type.String(),
            status: Type.Union([Type.Integer(), Type.Null()]),
            ok: Type.Boolean(),
            error: Type.Union([Type.String(), Type.Null()]),
            duration_ms: Type.Integer(),
          }),
        ),
      }),
    ),
  },
  { $id: 'SttJob', title: 'SttJob' },
);
const jobRef = Type.Unsafe<unknown>({ $ref: 'SttJob#' });
export const JobEnvelope = Type.Object({ success: Type.Literal(true), job: jobRef });
export const JobPage = Type.Object({
  success: Type.Literal(true),
  jobs: Type.Array(jobRef),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const CREATE_JOB_DOC = {
  tags: ['stt'],
  summary: 'Create a transcription job (long audio, asynchronous)',
  description:
    `multipart/form-data with \`file\` (up to PARLA_JOB_MAX_BYTES, default 1 GiB) or a \`url\` field, or a JSON object or url-encoded form with \`url\`; the batch fields model, language, response_format, prompt, timestamp_granularities, diarize, smart_format, punctuate, keywords, redact, profanity_filter; optional callback_url (a signed webhook when the job ends) and zero_retention. ` +
    'Optional header Idempotency-Key (1-255 visible ASCII characters): the same key and body within 24 hours answer the first job; another body is 409 IDEMPOTENCY_KEY_REUSED. Answers 202 with Location. docs/jobs.md.',
  consumes: ['multipart/form-data', 'application/json', 'application/x-www-form-urlencoded'],
  security: [{ apiKey: [] }],
  headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1-255 visible ASCII characters' })) }),
  response: { 202: JobEnvelope, ...errorResponses(402, 409, 413) },
};
export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
  status: Type.Optional(Type.Union(JOB_STATUSES.map((s) => Type.Literal(s)))),
});
export const RESULT_DOC =
  'text, srt and vtt in their own content type, the JSON formats as JSON. 404 NOT_FOUND while the job has no result (not completed, deleted, or zero retention).';
