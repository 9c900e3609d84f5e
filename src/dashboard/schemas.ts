// Request and response schemas of the dashboard API (/dashboard/api), validated by the same
// TypeBox + Ajv setup as the public API, so malformed input is a 400 in the usual error body.

import { Type } from 'typebox';

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' });

export const SignInBody = Type.Object({
  email: Email,
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const NewKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
});

export const KeyParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const UsageQuery = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')], { default: 'live' })),
});

const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);
const Stamp = Type.String({ format: 'date-time' });

export const AccountView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  plan: Type.String(),
});

export const SessionView = Type.Object({ account: AccountView, csrf_token: Type.String() });

export const KeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  mode: Type.String(),
  state: Type.String({ description: 'active, expired, revoked or disabled' }),
  created_at: Stamp,
  last_used_at: Nullable(Stamp),
  expires_at: Nullable(Stamp),
  requests: Type.Integer(),
  credits_used: Type.Integer(),
});

export const KeyList = Type.Object({ keys: Type.Array(KeyView) });
export const OneKey = Type.Object({ key: KeyView });
export const CreatedKey = Type.Object({
  key: KeyView,
  api_key: Type.String({ description: 'The full key: shown this once, never again.' }),
});

const Counts = Type.Object({ requests: Type.Integer(), credits: Type.Integer() });

export const DashboardUsage = Type.Object({
  mode: Type.String(),
  plan: Type.String(),
  period: Type.Object({ start: Stamp, end: Stamp, renewal_date: Type.String({ format: 'date' }) }),
  credits: Type.Object({ live: Type.Integer(), test: Type.Integer() }),
  credits_used_this_period: Type.Integer(),
  characters: Type.Object({ used: Type.Integer(), limit: Type.Integer(), remaining: Type.Integer() }),
  requests: Type.Object({ today: Type.Integer(), this_month: Type.Integer() }),
  rate_limits: Type.Object({ requests_per_minute: Type.Integer(), requests_per_hour: Type.Integer(), concurrent_requests: Type.Integer() }),
  daily: Type.Array(Type.Object({ day: Type.String({ format: 'date' }), tts: Counts, stt: Counts })),
});

// Jobs (docs/jobs.md): the account's asynchronous transcriptions, listed without their results
// (a long recording's transcript is large; GET /api/v1/stt/jobs/{id}/result serves it).
export const JobsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  status: Type.Optional(Type.Union(['queued', 'running', 'completed', 'failed', 'canceled'].map((s) => Type.Literal(s)))),
});

export const JobParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const JobView = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'queued, running, completed, failed or canceled' }),
  mode: Type.String(),
  model: Nullable(Type.String()),
  language: Nullable(Type.String()),
  response_format: Nullable(Type.String()),
  progress: NullableNumber,
  created_at: Stamp,
  started_at: Nullable(Stamp),
  finished_at: Nullable(Stamp),
  attempts: Type.Integer(),
  credits_used: Type.Union([Type.Integer(), Type.Null()]),
  audio_seconds: Type.Union([Type.Number(), Type.Null()], {
    description: "the audio's length, from a json or verbose_json result; else null",
  }),
  source: Type.Object({
    type: Type.String(),
    filename: Type.Optional(Nullable(Type.String())),
    bytes: Type.Optional(Type.Integer()),
    url: Type.Optional(Type.String()),
  }),
  callback_url: Nullable(Type.String()),
  webhook_state: Nullable(Type.String({ description: 'pending, delivered or failed; null without callback_url' })),
  result_deleted: Type.Boolean(),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
});

export const JobList = Type.Object({ jobs: Type.Array(JobView), next_cursor: Nullable(Type.String()) });
export const OneJob = Type.Object({ job: JobView });
const WebhookAttempt = Type.Object({
  attempt: Type.Integer(),
  at: Stamp,
  status: Type.Union([Type.Integer(), Type.Null()]),
  ok: Type.Boolean(),
  error: Nullable(Type.String()),
  duration_ms: Type.Number(),
});
export const JobDetailView = Type.Object({
  ...JobView.properties,
  zero_retention: Type.Boolean(),
  result: Type.Unknown({ description: "a completed job's kept result: a string (text, srt, vtt) or the JSON answer; else null" }),
  webhook: Type.Union([Type.Object({ state: Type.String(), attempts: Type.Array(WebhookAttempt) }), Type.Null()]),
});
export const OneJobDetail = Type.Object({ job: JobDetailView });
