// `parla jobs create|get|list|cancel|result` and `parla transcribe FILE --async`: asynchronous
// transcription jobs (docs/jobs.md) on top of the client SDK's `jobs` methods. Human output by
// default (the job id alone on stdout after a create, so `id=$(parla jobs create f.wav)` works),
// the API's job JSON with --json.

import { stat } from 'node:fs/promises';
import { ParlaError } from '../../packages/client/src/index.js';
import type { CreateJobOptions, Job, JobStatus, ParlaClient, ResponseFormat } from '../../packages/client/src/index.js';
import { oneOf, optionalInt, output, parse, UsageError } from './args.js';
import {
  COMMON,
  makeClient,
  progress,
  reportRetry,
  responseFormat,
  TRANSCRIBE_OPTIONS,
  transcribeFields,
  writeTranscript,
} from './client-options.js';

/** What a job takes besides the batch options (jobs create, transcribe --async). */
export const JOB_OPTIONS = {
  callback: { type: 'string' },
  'zero-retention': { type: 'boolean' },
  'idempotency-key': { type: 'string' },
  wait: { type: 'boolean' },
} as const;

const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'canceled'] as const satisfies readonly JobStatus[];

/** Between two polls of --wait: a short file is done in a second or two. */
const WAIT_INTERVAL_MS = 1000;

const USAGE = `usage:
  parla jobs create FILE|URL [--callback URL] [--format F] [--model M] [--language L] [--prompt P]
                    [--keywords a,b] [--diarize] [--smart-format] [--punctuate] [--zero-retention]
                    [--idempotency-key K] [--wait [-o out]]
  parla jobs get ID
  parla jobs list [--status queued|running|completed|failed|canceled] [--limit N] [--cursor C]
  parla jobs cancel ID
  parla jobs result ID [-o out]
(each takes --json)`;

function percent(p: number | null): string {
  return p === null ? '-' : `${Math.round(p * 100)}%`;
}

function sourceText(job: Job): string {
  const s = job.source;
  return s.type === 'url' ? s.url : `upload ${s.filename ?? '(unnamed)'} (${s.bytes} bytes)`;
}

/** The job as `key: value` lines. */
export function jobText(job: Job): string {
  const lines: Array<[string, string | number | null | undefined]> = [
    ['id', job.id],
    ['status', job.status],
    ['model', job.model],
    ['language', job.language],
    ['format', job.response_format],
    ['progress', percent(job.progress)],
    ['created', job.created_at],
    ['started', job.started_at],
    ['finished', job.finished_at],
    ['attempts', job.attempts],
    ['credits', job.credits_used],
    ['source', sourceText(job)],
  ];
  if (job.callback_url) lines.push(['callback', job.callback_url]);
  if (job.webhook)
    lines.push(['webhook', `${job.webhook.state} (${job.webhook.attempts.length} attempt${job.webhook.attempts.length === 1 ? '' : 's'})`]);
  if (job.error) lines.push(['error', `${job.error.code}: ${job.error.message}`]);
  if (job.status === 'completed' && job.result_deleted) lines.push(['result', 'deleted']);
  return lines.map(([k, v]) => `${`${k}:`.padEnd(10)}${v ?? '-'}`).join('\n');
}

/** The list as a table, newest first. */
export function jobTable(jobs: Job[]): string {
  if (jobs.length === 0) return 'no jobs';
  const rows = [
    ['ID', 'STATUS', 'MODEL', 'CREATED', 'PROGRESS', 'CREDITS'],
    ...jobs.map((j) => [
      j.id,
      j.status,
      j.model ?? '-',
      j.created_at,
      percent(j.progress),
      j.credits_used === null ? '-' : String(j.credits_used),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** A job that ended without a result, as the error the command exits with. */
function jobFailure(job: Job): ParlaError {
  if (job.status === 'canceled') return new ParlaError({ status: 0, code: 'JOB_CANCELED', message: `job ${job.id} was canceled` });
  return new ParlaError({
    status: 0,
    code: job.error?.code ?? 'JOB_FAILED',
    message: `job ${job.id} failed: ${job.error?.message ?? 'no reason given'}`,
    ...(job.error?.details ? { details: job.error.details } : {}),
  });
}

/** Creates the job; prints its id (or JSON), or with --wait polls it and prints its result. */
async function createAndReport(client: ParlaClient, values: Record<string, unknown>, opts: CreateJobOptions): Promise<number> {
  const quiet = !!values.quiet;
  const p = progress(quiet);
  if (opts.file !== undefined) p.start('uploading and queuing…');
  let job: Job;
  try {
    job = await client.jobs.create({ ...opts, onRetry: reportRetry });
  } finally {
    p.stop();
  }
  if (!values.wait) {
    output(!!values.json, job, () => job.id);
    if (!quiet && !values.json) process.stderr.write(`${job.status} job ${job.id}: parla jobs get ${job.id}\n`);
    return 0;
  }
  return waitAndReport(client, values, job.id);
}

async function waitAndReport(client: ParlaClient, values: Record<string, unknown>, id: string): Promise<number> {
  const p = progress(!!values.quiet);
  p.start(`job ${id} queued`);
  let job: Job;
  try {
    job = await client.jobs.wait(id, {
      intervalMs: WAIT_INTERVAL_MS,
      onPoll: (j) => p.update(`job ${id} ${j.status}${j.status === 'running' ? ` ${percent(j.progress)}` : ''}`),
    });
  } finally {
    p.stop();
  }
  if (values.json) {
    // The job as JSON, its result inside; to -o FILE when given, like a transcript.
    await writeTranscript(values, job);
    return job.status === 'completed' ? 0 : 1;
  }
  if (job.status !== 'completed') throw jobFailure(job);
  await writeTranscript(values, await client.jobs.result(id));
  return 0;
}

/** `parla transcribe FILE --async [--callback URL] [--wait]`: the file as a job instead of one long request. */
export async function transcribeAsync(values: Record<string, unknown>, source: { file: string }, format: ResponseFormat): Promise<number> {
  if (values.output && !values.wait) throw new UsageError('-o goes with --wait (the result is not there before the job ends)');
  await stat(source.file).catch(() => {
    throw new UsageError(`cannot read ${source.file}`);
  });
  const client = await makeClient(values);
  return createAndReport(client, values, jobOptions(values, source, format));
}

function jobOptions(
  values: Record<string, unknown>,
  source: { file: string } | { url: string },
  format: ResponseFormat | undefined,
): CreateJobOptions {
  return {
    ...source,
    ...transcribeFields(values, format),
    ...(typeof values.callback === 'string' ? { callback_url: values.callback } : {}),
    ...(values['zero-retention'] ? { zero_retention: true } : {}),
    ...(typeof values['idempotency-key'] === 'string' ? { idempotencyKey: values['idempotency-key'] } : {}),
  };
}

function oneId(positionals: string[], sub: string): string {
  const [id, ...extra] = positionals;
  if (!id || extra.length) throw new UsageError(`usage: parla jobs ${sub} ID`);
  return id;
}

export async function jobsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values, positionals } = parse(rest, { ...COMMON, ...TRANSCRIBE_OPTIONS, ...JOB_OPTIONS, 'audio-url': { type: 'string' } });
      if (positionals.length > 1 || (positionals.length === 1) === (values['audio-url'] !== undefined)) throw new UsageError(USAGE);
      // --url is the server's address for every client command, so the audio's URL is
      // --audio-url, or simply the argument when it starts with http:// or https://.
      const arg = positionals[0];
      const audioUrl = (values['audio-url'] as string | undefined) ?? (arg !== undefined && /^https?:\/\//i.test(arg) ? arg : undefined);
      const file = audioUrl === undefined ? arg : undefined;
      if (values.output && !values.wait) throw new UsageError('-o goes with --wait (the result is not there before the job ends)');
      if (file !== undefined)
        await stat(file).catch(() => {
          throw new UsageError(`cannot read ${file}`);
        });
      const client = await makeClient(values);
      return createAndReport(
        client,
        values,
        jobOptions(values, file !== undefined ? { file } : { url: audioUrl! }, responseFormat(values)),
      );
    }
    case 'get': {
      const { values, positionals } = parse(rest, COMMON);
      const job = await (await makeClient(values)).jobs.get(oneId(positionals, 'get'));
      output(!!values.json, job, () => jobText(job));
      return 0;
    }
    case 'list': {
      const { values } = parse(
        rest,
        { ...COMMON, status: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
        false,
      );
      const status = values.status === undefined ? undefined : oneOf(values.status as string, JOB_STATUSES, '--status');
      const limit = optionalInt(values, 'limit', { min: 1 });
      const page = await (await makeClient(values)).jobs.list({
        ...(status ? { status } : {}),
        ...(limit === undefined ? {} : { limit }),
        ...(typeof values.cursor === 'string' ? { cursor: values.cursor } : {}),
      });
      output(!!values.json, page, () => jobTable(page.jobs));
      if (!values.json && !values.quiet && page.next_cursor)
        process.stderr.write(
          `more: parla jobs list --cursor ${page.next_cursor}${status ? ` --status ${status}` : ''}${limit ? ` --limit ${limit}` : ''}\n`,
        );
      return 0;
    }
    case 'cancel': {
      const { values, positionals } = parse(rest, COMMON);
      const job = await (await makeClient(values)).jobs.cancel(oneId(positionals, 'cancel'));
      output(!!values.json, job, () => `${job.id} ${job.status}${job.status === 'completed' ? ' (result deleted)' : ''}`);
      return 0;
    }
    case 'result': {
      const { values, positionals } = parse(rest, { ...COMMON, output: TRANSCRIBE_OPTIONS.output });
      const result = await (await makeClient(values)).jobs.result(oneId(positionals, 'result'));
      await writeTranscript(values, result);
      return 0;
    }
    default:
      throw new UsageError(sub === undefined ? USAGE : `unknown jobs command "${sub}"\n${USAGE}`);
  }
}
