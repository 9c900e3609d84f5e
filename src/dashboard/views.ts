// Domain records -> the JSON the dashboard API sends (snake_case, ISO 8601 or null).

import { effectiveKeyState } from '../accounts/api-keys.js';
import type { Account, ApiKeyRecord, ApiKeyWithUsage } from '../domain/accounts.js';
import type { JobRecord } from '../jobs/queue.js';

export function accountView(a: Account) {
  return { id: a.id, name: a.name, email: a.email, plan: a.plan };
}

export function keyView(k: ApiKeyRecord | ApiKeyWithUsage, now: Date = new Date()) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    mode: k.mode,
    state: effectiveKeyState(k, now),
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    expires_at: k.expiresAt?.toISOString() ?? null,
    requests: 'requests' in k ? k.requests : 0,
    credits_used: 'creditsUsed' in k ? k.creditsUsed : 0,
  };
}

/** The audio's length from a JSON result (json, verbose_json); text, srt and vtt results do not say it. */
function audioSeconds(result: unknown): number | null {
  const d = result !== null && typeof result === 'object' ? (result as { duration?: unknown }).duration : undefined;
  return typeof d === 'number' && Number.isFinite(d) ? d : null;
}

/** A job in the dashboard's list: what the API's job JSON shows, without the result itself. */
export function jobView(j: JobRecord) {
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: j.id,
    status: j.status,
    mode: j.mode,
    model: text(j.params.model),
    language: text(j.params.language),
    response_format: text(j.params.response_format),
    progress: j.progress,
    created_at: j.createdAt.toISOString(),
    started_at: j.startedAt?.toISOString() ?? null,
    finished_at: j.finishedAt?.toISOString() ?? null,
    attempts: j.attempts,
    credits_used: j.creditsUsed,
    audio_seconds: audioSeconds(j.result),
    // An upload's server path never leaves the server (docs/jobs.md).
    source:
      j.source.type === 'url' ? { type: 'url', url: j.source.url } : { type: 'upload', filename: j.source.filename, bytes: j.source.bytes },
    callback_url: j.callbackUrl,
    webhook_state: j.callbackUrl === null ? null : j.webhook.state,
    result_deleted: j.resultDeleted,
    error: j.status === 'failed' && j.error ? { code: j.error.code, message: j.error.message } : null,
  };
}

/**
 * One job opened in the dashboard: the listed fields, plus a completed job's result (exactly what
 * GET /api/v1/stt/jobs/{id}/result answers, as JSON or a string) and every webhook attempt.
 */
export function jobDetailView(j: JobRecord) {
  const kept = j.status === 'completed' && !j.resultDeleted && !j.zeroRetention;
  return {
    ...jobView(j),
    zero_retention: j.zeroRetention,
    result: kept ? (j.result ?? null) : null,
    webhook:
      j.callbackUrl === null
        ? null
        : {
            state: j.webhook.state,
            attempts: j.webhook.attempts.map((a) => ({
              attempt: a.attempt,
              at: a.at.toISOString(),
              status: a.status,
              ok: a.ok,
              error: a.error,
              duration_ms: a.durationMs,
            })),
          },
  };
}
