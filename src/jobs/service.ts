// Transcription jobs (docs/jobs.md): create, get, list, cancel and result, for every edge that
// offers them (the native routes, src/routes/v1/jobs.ts). The rules live here, not in a route: the
// same request checks as the batch endpoint (SttService.checkRequest, also run by the runner before
// it fetches the audio), the balance pre-check, the account's zero-retention policy, idempotency,
// and the wake-up of this node's runner (src/background-jobs.ts).

import type { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { ApiError } from '../errors.js';
import type { AuthContext } from '../accounts/auth-context.js';
import type { Billing } from '../accounts/billing.js';
import type { Config } from '../config.js';
import type { ModelRegistry, SttModel } from '../registry/model-registry.js';
import type { SttService } from '../stt/service.js';
import { parseSttFields, type SttRequest } from '../stt/request.js';
import { RESPONSE_CONTENT_TYPES, type ResponseFormat } from '../stt/response-formats.js';
import { checkUrl, type FetchPolicy } from '../net/safe-fetch.js';
import { serviceErrorToApiError } from '../faults/translate.js';
import {
  bodyHash,
  decodeCursor,
  FINISHED,
  IdempotencyConflictError,
  validIdempotencyKey,
  type JobQueue,
  type JobRecord,
  type JobStatus,
  type Page,
} from './queue.js';
import { paramsOf } from './job-params.js';
import { cancelJob } from './cancel.js';
import { DIALECT_PARAM } from './dialect.js';
import { fetchPolicy, jobsDir } from './settings.js';

/** An uploaded file written to the jobs directory (src/http/job-body.ts). */
export interface StoredUpload {
  path: string;
  bytes: number;
  filename: string | null;
  /** SHA-256 (hex) of the bytes: what an Idempotency-Key binds the file by. */
  sha256: string;
}

export interface NewJobRequest {
  /** The batch fields and url, callback_url, zero_retention, as strings. */
  fields: Map<string, string>;
  file: StoredUpload | null;
  /** A valid Idempotency-Key (JobService.idempotencyKey), or null. */
  idempotencyKey: string | null;
}

export interface JobServiceDeps {
  queue: JobQueue;
  /** 'enqueued' wakes this node's runner. */
  events: EventEmitter;
  stt: SttService;
  registry: ModelRegistry;
  billing: Billing;
  config: Config;
}

const JOB_ID = /^job_[A-Za-z0-9]{20}$/;

const notFound = () => new ApiError('NOT_FOUND', { message: 'No such job in this account.' });

function parseBool(field: string, v: string | undefined): boolean {
  if (v === undefined || v.trim() === '') return false;
  if (/^(true|1|yes|on)$/i.test(v.trim())) return true;
  if (/^(false|0|no|off)$/i.test(v.trim())) return false;
  throw new ApiError('INVALID_PARAMETER', { message: `${field} must be true or false.`, details: { field } });
}

export class JobService {
  /** Where uploads are written before their job exists. */
  readonly dir: string;
  private readonly policy: FetchPolicy;

  constructor(private readonly d: JobServiceDeps) {
    this.dir = jobsDir(d.config.dataDir);
    // Uploads are written here before any runner started (a node without one still takes jobs).
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.policy = fetchPolicy(d.config);
  }

  /** The feature check, made first (before the upload is read). */
  checkAccess(auth: AuthContext): void {
    this.d.stt.checkAccess(auth, 'batch');
  }

  /**
   * 402 before the upload is read when the balance cannot pay a second of audio (decision #58); not
   * for a request naming an Idempotency-Key, which may be the replay of a job already paid for.
   */
  async checkBalanceBeforeUpload(auth: AuthContext, idempotencyKey: string | null): Promise<void> {
    if (idempotencyKey === null) await this.d.stt.checkBalanceBeforeUpload(auth);
  }

  /** The Idempotency-Key header's value, checked (1-255 visible ASCII characters), or null when absent. */
  idempotencyKey(header: string | string[] | undefined): string | null {
    const key = typeof header === 'string' ? header : null;
    if (header !== undefined && (key === null || !validIdempotencyKey(key))) {
      throw new ApiError('INVALID_PARAMETER', {
        message: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        details: { field: 'Idempotency-Key' },
      });
    }
    return key;
  }

  /**
   * Makes a job (or answers the one an earlier request with the same Idempotency-Key and body
   * made: `created` false). The upload is the job's from here: deleted on any refusal, and when an
   * earlier job answers.
   */
  async create(auth: AuthContext, req: NewJobRequest): Promise<{ job: JobRecord; created: boolean }> {
    const { queue, events, stt } = this.d;
    const { fields, file, idempotencyKey } = req;
    let keep = false;
    try {
      const options = parseSttFields(fields, 'universal');
      const { model } = stt.checkRequest(auth, options, 'universal');
      // Stored as the URL parser normalized it (a NUL percent-encoded): what is fetched, and what
      // PostgreSQL can hold.
      const url = this.checked(fields.get('url'), 'url');
      if (file && url)
        throw new ApiError('INVALID_REQUEST', { message: 'Send either a file or a url, not both.', details: { field: 'url' } });
      if (!file && !url)
        throw new ApiError('MISSING_FILE', { message: 'Send the audio in the multipart field "file", or its address in "url".' });
      if (file && file.bytes === 0) throw new ApiError('MISSING_FILE', { message: 'The uploaded file is empty.' });
      const callbackUrl = this.checked(fields.get('callback_url'), 'callback_url');
      // The account's policy wins: a request cannot ask to keep what the operator said not to.
      const zeroRetention = parseBool('zero_retention', fields.get('zero_retention')) || auth.account.zeroRetention;
      await this.checkBalance(auth, model, file);
      const params = paramsOf(options);
      const hash = idempotencyKey
        ? bodyHash([JSON.stringify(params), url ?? '', callbackUrl ?? '', String(zeroRetention), file?.sha256 ?? ''])
        : null;
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
      return { job, created };
    } catch (err) {
      if (err instanceof IdempotencyConflictError) throw new ApiError('IDEMPOTENCY_KEY_REUSED', { details: { job_id: err.jobId } });
      throw err;
    } finally {
      if (file && !keep) await rm(file.path, { force: true });
    }
  }

  /**
   * A job made by a compatible door that read its request itself (Deepgram's callback, decision
   * #45): the same checks as create() (the batch rules, the balance, a declared length), then
   * queued with the door's dialect, which renders its result and sends its callback. The upload is
   * the job's from here, as in create().
   */
  async createFor(
    auth: AuthContext,
    req: {
      options: SttRequest;
      file: StoredUpload | null;
      url: string | null;
      callbackUrl: string;
      dialect: string;
      data: Record<string, unknown>;
    },
  ): Promise<JobRecord> {
    let keep = false;
    try {
      const { model } = this.d.stt.checkRequest(auth, req.options, 'universal');
      if (!req.file && !req.url) throw new ApiError('MISSING_FILE', { message: 'Send the audio, or its address as {"url"}.' });
      await this.checkBalance(auth, model, req.file);
      const { job } = await this.d.queue.enqueue({
        accountId: auth.account.id,
        keyId: auth.key.id,
        mode: auth.mode,
        params: { ...paramsOf(req.options), ...req.data, [DIALECT_PARAM]: req.dialect },
        source: req.file
          ? { type: 'upload', path: req.file.path, bytes: req.file.bytes, filename: req.file.filename }
          : { type: 'url', url: req.url! },
        callbackUrl: req.callbackUrl,
        idempotencyKey: null,
        bodyHash: null,
        zeroRetention: auth.account.zeroRetention,
      });
      keep = req.file !== null;
      this.d.events.emit('enqueued', job.id);
      return job;
    } finally {
      if (req.file && !keep) await rm(req.file.path, { force: true });
    }
  }

  /**
   * The audio's length is unknown until it is decoded: what is checked before a job is queued is
   * that the balance pays for a second of it (the runner holds the real price, and fails the job
   * with INSUFFICIENT_CREDITS when it is more than the balance), and that an upload does not
   * declare more than the balance pays for, or than any job may carry (decision #42).
   */
  private async checkBalance(auth: AuthContext, model: SttModel, file: StoredUpload | null): Promise<void> {
    const perSecond = this.d.registry.sttCredits(model, 1);
    const balance = await this.d.billing.balance(auth);
    if (balance < perSecond) {
      throw new ApiError('INSUFFICIENT_CREDITS', {
        message: `The ${auth.mode} balance is ${balance} credits; ${model} costs ${perSecond} per second of audio.`,
        details: { required: perSecond, balance },
      });
    }
    if (file) await this.d.stt.checkDeclaredFile(auth, model, file.path);
  }

  /** The job of the caller's account, or 404 (another account's id is the same as an unknown one). */
  async get(auth: AuthContext, id: string): Promise<JobRecord> {
    if (!JOB_ID.test(id)) throw notFound();
    const job = await this.d.queue.get(auth.account.id, id);
    // A key sees the jobs of its own mode only, as for balances and usage (issue 30).
    if (!job || job.mode !== auth.mode) throw notFound();
    return job;
  }

  /** The account's jobs, newest first; INVALID_PARAMETER for a cursor this API did not give. */
  list(auth: AuthContext, q: { limit?: number; cursor?: string; status?: JobStatus }): Promise<Page> {
    if (q.cursor !== undefined && decodeCursor(q.cursor) === null)
      throw new ApiError('INVALID_PARAMETER', { message: 'cursor is not a next_cursor this API gave.', details: { field: 'cursor' } });
    return this.d.queue.list(auth.account.id, {
      limit: q.limit ?? 20,
      cursor: q.cursor ?? null,
      mode: auth.mode,
      ...(q.status ? { status: q.status } : {}),
    });
  }

  /** Cancels a queued or running job, or deletes a finished job's result; the job after. */
  async cancel(auth: AuthContext, id: string): Promise<JobRecord> {
    const job = await this.get(auth, id);
    const accountId = auth.account.id;
    if (FINISHED.has(job.status)) return (await this.d.queue.deleteResult(accountId, job.id)) ?? job;
    return cancelJob(this.d.queue, accountId, job, this.d.events);
  }

  /** A completed job's result in its response_format, or 404 while it has none. */
  async result(auth: AuthContext, id: string): Promise<{ body: string; contentType: string }> {
    const job = await this.get(auth, id);
    if (job.status !== 'completed' || job.result === null || job.result === undefined) {
      const why =
        job.status !== 'completed'
          ? `the job is ${job.status}`
          : job.zeroRetention
            ? 'the job keeps no result (zero_retention)'
            : 'its result was deleted';
      throw new ApiError('NOT_FOUND', { message: `The job has no result: ${why}.`, details: { status: job.status } });
    }
    const format = (job.params.response_format ?? 'json') as ResponseFormat;
    const body = typeof job.result === 'string' ? job.result : JSON.stringify(job.result);
    return { body, contentType: RESPONSE_CONTENT_TYPES[format] ?? 'application/json' };
  }

  /** The URL's form (scheme, credentials, length, an IP literal); its addresses are checked when it is fetched. */
  private checked(raw: string | undefined, field: string): string | null {
    const url = raw?.trim();
    if (!url) return null;
    try {
      return checkUrl(url, this.policy).href;
    } catch (err) {
      const mapped = serviceErrorToApiError(err);
      if (mapped) throw new ApiError(mapped.code, { message: mapped.message, details: { field } });
      throw err;
    }
  }
}
