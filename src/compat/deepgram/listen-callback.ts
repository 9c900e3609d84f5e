// Deepgram's `callback` on POST /v1/listen (decision #45, docs/compatibility.md "Deepgram"): the
// request is checked as the answer-now path checks it (the query, the feature, the balance, the
// callback URL against the safe fetcher's rules, its addresses resolved now), answered at once
// with {"request_id"}, and run as a Parla job (src/jobs/) of the "deepgram" dialect: the runner
// renders Deepgram's answer (listen-render.ts, with the same request_id), and the webhook
// dispatcher sends it to the callback URL with Deepgram's method and headers, or Deepgram's error
// body when the job fails.

import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { ApiError, ERRORS, type ErrorCode } from '../../errors.js';
import { checkUrl, checkUrlNow, type FetchPolicy } from '../../net/safe-fetch.js';
import { fetchErrorToApi } from '../../faults/translate.js';
import type { JobService } from '../../jobs/service.js';
import type { CallbackRequest, JobDialect } from '../../jobs/dialect.js';
import type { JobRecord } from '../../jobs/queue.js';
import { audioUrlOf, isJsonRequest, listenRequest, noAudio, sha256, withContainer } from './listen-body.js';
import type { ListenParams } from './listen-params.js';
import { renderListenResponse } from './listen-render.js';
import { deepgramErrorBody } from './errors.js';

export const DEEPGRAM_DIALECT = 'deepgram';

/** What a Deepgram job keeps beside the batch fields (params.deepgram). */
interface DeepgramJobData {
  request_id: string;
  /** The query as read, without the callback URL (its credentials would be in it). */
  listen: Omit<ListenParams, 'callback'>;
  method: 'POST' | 'PUT';
  /** "user:password" from the callback URL, sent as Basic authorization (Deepgram's form). */
  basic?: string;
}

/** The callback URL checked now, and the credentials it carried (taken out: the URL is stored and shown). */
async function callbackTarget(raw: string, policy: FetchPolicy): Promise<{ url: string; basic?: string }> {
  try {
    // An unparsable URL gets the fetcher's own refusal.
    const parsed = URL.canParse(raw) ? new URL(raw) : checkUrl(raw, policy);
    const basic =
      parsed.username || parsed.password ? `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}` : undefined;
    parsed.username = '';
    parsed.password = '';
    return { url: (await checkUrlNow(parsed.href, policy)).href, ...(basic === undefined ? {} : { basic }) };
  } catch (err) {
    const mapped = fetchErrorToApi(err);
    if (mapped instanceof ApiError)
      throw new ApiError(mapped.code, {
        message: mapped.message.replace(/^URL not allowed/, 'callback URL not allowed'),
        details: { field: 'callback' },
      });
    // decodeURIComponent of a malformed escape in the credentials
    throw new ApiError('INVALID_PARAMETER', {
      message: "The callback URL's credentials are not valid percent-encoding.",
      details: { field: 'callback' },
    });
  }
}

/**
 * Takes a callback request: the audio is stored (an upload) or its URL checked, the job queued,
 * and Deepgram's {"request_id"} returned. Every refusal (a bad callback URL, no credits, no audio)
 * is thrown now, for the route to answer in Deepgram's error shape.
 */
export async function acceptCallback(
  request: FastifyRequest,
  p: ListenParams,
  deps: { jobs: JobService; fetchPolicy: FetchPolicy },
): Promise<{ request_id: string }> {
  const target = await callbackTarget(p.callback!, deps.fetchPolicy);
  const options = { ...listenRequest(p), redaction: p.redaction };
  let file = null;
  let url: string | null = null;
  if (isJsonRequest(request)) {
    try {
      url = checkUrl(audioUrlOf(request.body), deps.fetchPolicy).href;
    } catch (err) {
      throw fetchErrorToApi(err);
    }
  } else {
    if (!Buffer.isBuffer(request.body) || request.body.length === 0) throw noAudio();
    const audio = withContainer(request.body, p);
    const target = path.join(deps.jobs.dir, `upload-${randomBytes(12).toString('hex')}`);
    const digest = await sha256(new Uint8Array(audio.buffer, audio.byteOffset, audio.byteLength));
    await writeFile(target, audio, { mode: 0o600 });
    file = { path: target, bytes: audio.length, filename: null, sha256: digest };
  }
  const { callback: _callback, ...listen } = p;
  const data: DeepgramJobData = {
    request_id: request.id,
    listen,
    method: p.callbackMethod,
    ...(target.basic === undefined ? {} : { basic: target.basic }),
  };
  await deps.jobs.createFor(request.auth, {
    options,
    file,
    url,
    callbackUrl: target.url,
    dialect: DEEPGRAM_DIALECT,
    data: { deepgram: data },
  });
  return { request_id: request.id };
}

function dataOf(job: JobRecord): DeepgramJobData {
  return job.params.deepgram as DeepgramJobData;
}

/** The error of a failed job in Deepgram's body, with the code's own status category. */
function failureBody(job: JobRecord, requestId: string): string {
  const code = job.error && Object.hasOwn(ERRORS, job.error.code) ? (job.error.code as ErrorCode) : 'INTERNAL_ERROR';
  const message = job.error?.message ?? (job.status === 'canceled' ? 'The request was canceled.' : 'The transcription failed.');
  return JSON.stringify(deepgramErrorBody(new ApiError(code, { message }), requestId));
}

/** The "deepgram" job dialect, for the runner and the webhook dispatcher (src/background-jobs.ts). */
export function deepgramJobDialect(version: string): JobDialect {
  return {
    prepareAudio: (audio, job) => withContainer(audio, dataOf(job).listen),
    async render(t, job, audio) {
      const d = dataOf(job);
      return renderListenResponse(
        t,
        { ...d.listen, callback: undefined },
        { requestId: d.request_id, sha256: await sha256(audio), created: job.createdAt, version },
      );
    },
    callback(job): CallbackRequest {
      const d = dataOf(job);
      const body =
        job.status === 'completed' && job.result !== null && job.result !== undefined
          ? JSON.stringify(job.result)
          : failureBody(job, d.request_id);
      return {
        method: d.method === 'PUT' ? 'PUT' : 'POST',
        body,
        headers: {
          // Deepgram's: the identifier of the key that made the request, for the receiver to check.
          'dg-token': job.keyId,
          'dg-request-id': d.request_id,
          ...(d.basic === undefined ? {} : { authorization: `Basic ${Buffer.from(d.basic).toString('base64')}` }),
        },
      };
    },
  };
}
