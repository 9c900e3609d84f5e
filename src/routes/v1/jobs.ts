// Asynchronous transcription jobs (docs/jobs.md, issue 23): POST /api/v1/stt/jobs makes one (an
// upload or a URL, the batch fields, a callback), GET shows it or lists them, GET .../result answers
// the result in its own content type, DELETE cancels it or deletes its result. The edge validates
// everything the batch endpoint does before a job exists; the runner (src/jobs/runner.ts) does the work.

import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { cancelJob } from '../../jobs/cancel.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { Services } from '../../services.js';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../../http/schemas.js';
import { requireFeature } from '../../accounts/auth-context.js';
import { parseSttFields } from '../../stt/request.js';
import { RESPONSE_CONTENT_TYPES, type ResponseFormat } from '../../stt/render.js';
import { checkUrl, fetchErrorToApi } from '../../net/safe-fetch.js';
import { bodyHash, decodeCursor, FINISHED, IdempotencyConflictError, JOB_STATUSES, validIdempotencyKey, type JobRecord, type JobStatus } from '../../jobs/queue.js';
import { jobJson } from '../../jobs/job-json.js';
import { paramsOf } from '../../jobs/job-params.js';
import { readJobBody, type StoredUpload } from '../../jobs/job-body.js';
import { fetchPolicy, jobsDir } from '../../jobs/background.js';

const JOB_ID = /^job_[A-Za-z0-9]{20}$/;

const notFound = () => new ApiError('NOT_FOUND', { message: 'No such job in this account.' });

function parseBool(field: string, v: string | undefined): boolean {
  if (v === undefined || v.trim() === '') return false;
  if (/^(true|1|yes|on)$/i.test(v.trim())) return true;
  if (/^(false|0|no|off)$/i.test(v.trim())) return false;
  throw new ApiError('INVALID_PARAMETER', { message: `${field} must be true or false.`, details: { field } });
}

const JobSchema = Type.Object(
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
    source: Type.Object({}, { additionalProperties: true, description: '{"type": "url", "url"} or {"type": "upload", "filename", "bytes"}.' }),
    callback_url: Type.Union([Type.String(), Type.Null()]),
    zero_retention: Type.Boolean(),
    result: Type.Optional(Type.Unknown({ description: 'When completed: the batch endpoint\'s result in the job\'s response_format (a string for text, srt and vtt).' })),
    result_deleted: Type.Optional(Type.Boolean()),
    error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Object({}, { additionalProperties: true })) })),
    webhook: Type.Optional(
      Type.Object({
        id: Type.Union([Type.String(), Type.Null()]),
        state: Type.String({ description: 'none, pending, delivered or failed' }),
        attempts: Type.Array(Type.Object({ attempt: Type.Integer(), at: Type.String(), status: Type.Union([Type.Integer(), Type.Null()]), ok: Type.Boolean(), error: Type.Union([Type.String(), Type.Null()]), duration_ms: Type.Integer() })),
      }),
    ),
  },
  { $id: 'SttJob', title: 'SttJob' },
);
const jobRef = Type.Unsafe<unknown>({ $ref: 'SttJob#' });
const JobEnvelope = Type.Object({ success: Type.Literal(true), job: jobRef });
const JobPage = Type.Object({ success: Type.Literal(true), jobs: Type.Array(jobRef), next_cursor: Type.Union([Type.String(), Type.Null()]) });
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const jobRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const { stt, registry, billing, config } = services;
  const { queue, events } = services.jobs;
  const dir = jobsDir(config.dataDir);
  // Uploads are written here before any runner started (an app without one still takes jobs).
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const policy = fetchPolicy(services);
  await app.register(multipart, { throwFileSizeLimit: true });
  app.addSchema(JobSchema);

  /** The job of the caller's account, or 404 (another account's id is the same as an unknown one). */
  const ownJob = async (request: FastifyRequest<{ Params: { id: string } }>): Promise<JobRecord> => {
    const { id } = request.params;
    if (!JOB_ID.test(id)) throw notFound();
    const job = await queue.get(request.auth.account.id, id);
    if (!job) throw notFound();
    return job;
  };

  app.post(
    '/stt/jobs',
    {
      schema: {
        tags: ['stt'],
        summary: 'Create a transcription job (long audio, asynchronous)',
        description:
          `multipart/form-data with \`file\` (up to PARLA_JOB_MAX_BYTES, default 1 GiB) or a \`url\` field, or a JSON object with \`url\`; the batch fields model, language, response_format, prompt, timestamp_granularities, diarize, smart_format, punctuate, keywords; optional callback_url (a signed webhook when the job ends) and zero_retention. ` +
          'Optional header Idempotency-Key (1-255 visible ASCII characters): the same key and body within 24 hours answer the first job; another body is 409 IDEMPOTENCY_KEY_REUSED. Answers 202 with Location. docs/jobs.md.',
        consumes: ['multipart/form-data', 'application/json'],
        security: [{ apiKey: [] }],
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1-255 visible ASCII characters' })) }),
        response: { 202: JobEnvelope, ...errorResponses(402, 409, 413) },
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      stt.checkAccess(auth, 'batch');
      const rawKey = request.headers['idempotency-key'];
      const idempotencyKey = typeof rawKey === 'string' ? rawKey : null;
      if (rawKey !== undefined && (idempotencyKey === null || !validIdempotencyKey(idempotencyKey))) {
        throw new ApiError('INVALID_PARAMETER', { message: 'Idempotency-Key must be 1 to 255 visible ASCII characters.', details: { field: 'Idempotency-Key' } });
      }
      let file: StoredUpload | null = null;
      let keep = false;
      try {
        const body = await readJobBody(request, { maxBytes: config.jobs.maxBytes, dir });
        file = body.file;
        const { fields } = body;
        const options = parseSttFields(fields, 'universal');
        const model = registry.checkSttModel(options.model, 'universal');
        registry.resolveSttLanguage(model, options.language);
        if (options.diarize) requireFeature(auth, 'diarization');
        registry.requireSttBinding(model);
        const url = fields.get('url')?.trim() || null;
        if (file && url) throw new ApiError('INVALID_REQUEST', { message: 'Send either a file or a url, not both.', details: { field: 'url' } });
        if (!file && !url) throw new ApiError('MISSING_FILE', { message: 'Send the audio in the multipart field "file", or its address in "url".' });
        if (file && file.bytes === 0) throw new ApiError('MISSING_FILE', { message: 'The uploaded file is empty.' });
        if (url) checked(url, 'url');
        const callbackUrl = fields.get('callback_url')?.trim() || null;
        if (callbackUrl) checked(callbackUrl, 'callback_url');
        // The account's policy wins: a request cannot ask to keep what the operator said not to.
        const zeroRetention = parseBool('zero_retention', fields.get('zero_retention')) || auth.account.zeroRetention;
        // The audio's length is unknown until it is decoded: what is checked here is that the
        // balance pays for a second of it (the runner holds the real price, and fails the job with
        // INSUFFICIENT_CREDITS when it is more than the balance).
        const perSecond = registry.sttCredits(model, 1);
        const balance = await billing.balance(auth);
        if (balance < perSecond) {
          throw new ApiError('INSUFFICIENT_CREDITS', { message: `The ${auth.mode} balance is ${balance} credits; ${model} costs ${perSecond} per second of audio.`, details: { required: perSecond, balance } });
        }
        const params = paramsOf(options);
        const hash = idempotencyKey ? bodyHash([JSON.stringify(params), url ?? '', callbackUrl ?? '', String(zeroRetention), file?.sha256 ?? '']) : null;
        const { job, created } = await queue.enqueue({
          accountId: auth.account.id,
          keyId: auth.key.id,
          mode: auth.mode,
          params,
          source: file ? { type: 'upload', path: file.path, bytes: file.bytes, filename: file.filename } : { type: 'url', url: url! },
          callbackUrl,
          idempotencyKey,
          bodyHash: hash,
          zeroRetention,
        });
        keep = created && file !== null;
        if (created) events.emit('enqueued', job.id);
        return reply.code(202).header('Location', `/api/v1/stt/jobs/${job.id}`).send({ success: true, job: jobJson(job) });
      } catch (err) {
        if (err instanceof IdempotencyConflictError) throw new ApiError('IDEMPOTENCY_KEY_REUSED', { details: { job_id: err.jobId } });
        throw err;
      } finally {
        if (file && !keep) await rm(file.path, { force: true });
      }
    },
  );

  /** The URL's form (scheme, credentials, length, an IP literal); its addresses are checked when it is fetched. */
  function checked(url: string, field: string): void {
    try {
      checkUrl(url, policy);
    } catch (err) {
      const mapped = fetchErrorToApi(err);
      if (mapped instanceof ApiError) throw new ApiError(mapped.code, { message: mapped.message, details: { field } });
      throw err;
    }
  }

  app.get(
    '/stt/jobs',
    {
      schema: {
        tags: ['stt'],
        summary: 'List the account\'s transcription jobs, newest first',
        security: [{ apiKey: [] }],
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
          cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
          status: Type.Optional(Type.Union(JOB_STATUSES.map((s) => Type.Literal(s)))),
        }),
        response: { 200: JobPage, ...errorResponses() },
      },
    },
    async (request) => {
      const q = request.query as { limit?: number; cursor?: string; status?: JobStatus };
      if (q.cursor !== undefined && decodeCursor(q.cursor) === null) throw new ApiError('INVALID_PARAMETER', { message: 'cursor is not a next_cursor this API gave.', details: { field: 'cursor' } });
      const page = await queue.list(request.auth.account.id, { limit: q.limit ?? 20, cursor: q.cursor ?? null, ...(q.status ? { status: q.status } : {}) });
      return { success: true, jobs: page.jobs.map((j) => jobJson(j)), next_cursor: page.nextCursor };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/stt/jobs/:id',
    { schema: { tags: ['stt'], summary: 'A transcription job', security: [{ apiKey: [] }], params: IdParams, response: { 200: JobEnvelope, ...errorResponses(404) } } },
    async (request) => ({ success: true, job: jobJson(await ownJob(request)) }),
  );

  app.get<{ Params: { id: string } }>(
    '/stt/jobs/:id/result',
    {
      schema: {
        tags: ['stt'],
        summary: 'A completed job\'s result in its response_format',
        description: 'text, srt and vtt in their own content type, the JSON formats as JSON. 404 NOT_FOUND while the job has no result (not completed, deleted, or zero retention).',
        security: [{ apiKey: [] }],
        params: IdParams,
        response: errorResponses(404),
      },
    },
    async (request, reply: FastifyReply) => {
      const job = await ownJob(request);
      if (job.status !== 'completed' || job.result === null || job.result === undefined) {
        const why = job.status !== 'completed' ? `the job is ${job.status}` : job.zeroRetention ? 'the job keeps no result (zero_retention)' : 'its result was deleted';
        throw new ApiError('NOT_FOUND', { message: `The job has no result: ${why}.`, details: { status: job.status } });
      }
      const format = (job.params.response_format ?? 'json') as ResponseFormat;
      const body = typeof job.result === 'string' ? job.result : JSON.stringify(job.result);
      return reply.header('Content-Type', RESPONSE_CONTENT_TYPES[format] ?? 'application/json').send(body);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/stt/jobs/:id',
    {
      schema: {
        tags: ['stt'],
        summary: 'Cancel a queued or running job, or delete a finished job\'s result',
        security: [{ apiKey: [] }],
        params: IdParams,
        response: { 200: JobEnvelope, ...errorResponses(404) },
      },
    },
    async (request) => {
      const job = await ownJob(request);
      const accountId = request.auth.account.id;
      if (FINISHED.has(job.status)) return { success: true, job: jobJson((await queue.deleteResult(accountId, job.id)) ?? job) };
      return { success: true, job: jobJson(await cancelJob(queue, accountId, job)) };
    },
  );
};
