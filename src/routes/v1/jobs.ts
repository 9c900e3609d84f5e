// Asynchronous transcription jobs (docs/jobs.md, issue 23): POST /api/v1/stt/jobs makes one (an
// upload or a URL, the batch fields, a callback), GET shows it or lists them, GET .../result answers
// the result in its own content type, DELETE cancels it or deletes its result. The edge reads the
// request and renders the job; the rules are the job service's (src/jobs/service.ts) and the work
// the runner's (src/jobs/runner.ts).

import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { Services } from '../../services.js';
import { errorResponses } from '../../http/schemas.js';
import type { JobStatus } from '../../jobs/queue.js';
import { jobJson } from '../../jobs/job-json.js';
import type { JobService } from '../../jobs/service.js';
import { readJobBody } from '../../http/job-body.js';
import { acceptFormBodies } from '../../http/form-body.js';
import { CREATE_JOB_DOC, IdParams, JobEnvelope, JobPage, JobSchema, ListQuery, RESULT_DOC } from './job-schemas.js';

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

/** POST /stt/jobs: 202 with Location, the job (a new one, or the one an Idempotency-Key names). */
function createJob(jobs: JobService, maxBytes: number) {
  return async function createJob(request: FastifyRequest, reply: FastifyReply) {
    jobs.checkAccess(request.auth);
    const idempotencyKey = jobs.idempotencyKey(request.headers['idempotency-key']);
    await jobs.checkBalanceBeforeUpload(request.auth, idempotencyKey);
    const { fields, file } = await readJobBody(request, { maxBytes, dir: jobs.dir });
    const { job } = await jobs.create(request.auth, { fields, file, idempotencyKey });
    return reply
      .code(202)
      .header('Location', `/api/v1/stt/jobs/${job.id}`)
      .send({ success: true, job: jobJson(job) });
  };
}

function listJobs(jobs: JobService) {
  return async function listJobs(request: FastifyRequest) {
    const page = await jobs.list(request.auth, request.query as { limit?: number; cursor?: string; status?: JobStatus });
    return { success: true, jobs: page.jobs.map((j) => jobJson(j)), next_cursor: page.nextCursor };
  };
}

function getJob(jobs: JobService) {
  return async function getJob(request: IdRequest) {
    return { success: true, job: jobJson(await jobs.get(request.auth, request.params.id)) };
  };
}

function getJobResult(jobs: JobService) {
  return async function getJobResult(request: IdRequest, reply: FastifyReply) {
    const { body, contentType } = await jobs.result(request.auth, request.params.id);
    return reply.header('Content-Type', contentType).send(body);
  };
}

function cancelJob(jobs: JobService) {
  return async function cancelJob(request: IdRequest) {
    return { success: true, job: jobJson(await jobs.cancel(request.auth, request.params.id)) };
  };
}

export const jobRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const jobs = services.jobs.service;
  await app.register(multipart, { throwFileSizeLimit: true });
  // A url-encoded form with a url (curl -d, an HTML form), as docs/jobs.md invites.
  acceptFormBodies(app);
  app.addSchema(JobSchema);
  const own = { security: [{ apiKey: [] }], params: IdParams };
  app.post('/stt/jobs', { schema: CREATE_JOB_DOC }, createJob(jobs, services.config.jobs.maxBytes));
  app.get(
    '/stt/jobs',
    {
      schema: {
        tags: ['stt'],
        summary: "List the account's transcription jobs, newest first",
        security: [{ apiKey: [] }],
        querystring: ListQuery,
        response: { 200: JobPage, ...errorResponses() },
      },
    },
    listJobs(jobs),
  );
  app.get(
    '/stt/jobs/:id',
    { schema: { tags: ['stt'], summary: 'A transcription job', ...own, response: { 200: JobEnvelope, ...errorResponses(404) } } },
    getJob(jobs),
  );
  app.get(
    '/stt/jobs/:id/result',
    {
      schema: {
        tags: ['stt'],
        summary: "A completed job's result in its response_format",
        description: RESULT_DOC,
        ...own,
        response: errorResponses(404),
      },
    },
    getJobResult(jobs),
  );
  app.delete(
    '/stt/jobs/:id',
    {
      schema: {
        tags: ['stt'],
        summary: "Cancel a queued or running job, or delete a finished job's result",
        ...own,
        response: { 200: JobEnvelope, ...errorResponses(404) },
      },
    },
    cancelJob(jobs),
  );
};
