// The job as the API shows it (GET /api/v1/stt/jobs/{id}, the list, webhook payloads): one
// mapping, so a webhook carries exactly what a GET would. The server-side path of an upload never
// leaves the server.

import type { JobRecord } from './queue.js';

export interface JobJson {
  id: string;
  status: JobRecord['status'];
  model: unknown;
  language: unknown;
  response_format: unknown;
  progress: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  attempts: number;
  credits_used: number | null;
  source: { type: 'upload'; filename: string | null; bytes: number } | { type: 'url'; url: string };
  callback_url: string | null;
  zero_retention: boolean;
  result?: unknown;
  result_deleted?: boolean;
  error?: { code: string; message: string; details?: Record<string, unknown> };
  webhook?: {
    id: string | null;
    state: string;
    attempts: Array<{ attempt: number; at: string; status: number | null; ok: boolean; error: string | null; duration_ms: number }>;
  };
}

export function jobJson(job: JobRecord, opts: { webhook?: boolean } = {}): JobJson {
  const out: JobJson = {
    id: job.id,
    status: job.status,
    model: job.params.model ?? null,
    language: job.params.language ?? null,
    response_format: job.params.response_format ?? null,
    progress: job.progress,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    attempts: job.attempts,
    credits_used: job.creditsUsed,
    source:
      job.source.type === 'url'
        ? { type: 'url', url: job.source.url }
        : { type: 'upload', filename: job.source.filename, bytes: job.source.bytes },
    callback_url: job.callbackUrl,
    zero_retention: job.zeroRetention,
  };
  if (job.status === 'completed') {
    out.result = job.result;
    out.result_deleted = job.resultDeleted;
  }
  if (job.status === 'failed' && job.error) out.error = job.error;
  if (opts.webhook !== false && job.callbackUrl !== null) {
    out.webhook = {
      id: job.webhook.id,
      state: job.webhook.state,
      attempts: job.webhook.attempts.map((a) => ({
        attempt: a.attempt,
        at: a.at.toISOString(),
        status: a.status,
        ok: a.ok,
        error: a.error,
        duration_ms: a.durationMs,
      })),
    };
  }
  return out;
}
