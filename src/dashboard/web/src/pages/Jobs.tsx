// Jobs: the account's asynchronous transcriptions (docs/jobs.md), newest first, a page at a time,
// filtered by status; a queued or running job can be canceled, and any job opened (its id) to
// read its transcript, timings and webhook attempts (JobDetail.tsx). While a job on the page is still
// queued or running the page asks again every few seconds, so its progress moves on its own.

import { useEffect, useRef, useState } from 'preact/hooks';
import { dashboardApi, type Job, type JobPage, type JobStatus } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { JobDetailDialog } from './JobDetail';
import { formatAgo, formatDateTime, formatDuration, formatInt } from '../format';

export const JOBS_PER_PAGE = 20;
const REFRESH_MS = 3000;
const STATUSES: JobStatus[] = ['queued', 'running', 'completed', 'failed', 'canceled'];

const active = (j: Job) => j.status === 'queued' || j.status === 'running';

function StatusCell({ job }: { job: Job }) {
  const pct = job.progress === null ? null : Math.round(job.progress * 100);
  return (
    <>
      <span class={`badge job-${job.status}`}>{job.status}</span>
      {job.status === 'running' && (
        <span class="job-progress">
          <progress max={100} value={pct ?? undefined} aria-label={`Progress of ${job.id}`} />
          <span class="small">{pct === null ? 'starting' : `${pct}%`}</span>
        </span>
      )}
      {job.status === 'failed' && job.error && (
        <span class="muted small" title={job.error.message}>
          {' '}
          {job.error.code}
        </span>
      )}
    </>
  );
}

function sourceText(job: Job): string {
  if (job.source.type === 'url') return job.source.url;
  return job.source.filename ?? 'upload';
}

/** How long the job ran (or has been running), from its first start. */
function took(job: Job, now: number): string {
  if (!job.started_at) return '—';
  const end = job.finished_at ? Date.parse(job.finished_at) : now;
  return formatDuration((end - Date.parse(job.started_at)) / 1000);
}

function JobTable({ jobs, onCancel, onOpen }: { jobs: Job[]; onCancel: (j: Job) => void; onOpen: (j: Job) => void }) {
  const now = Date.now();
  return (
    <div class="table-scroll">
      <table class="jobs-table">
        <caption class="visually-hidden">Your transcription jobs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Status</th>
            <th scope="col">Model</th>
            <th scope="col">Mode</th>
            <th scope="col">Source</th>
            <th scope="col">Created</th>
            <th scope="col" class="num">
              Audio
            </th>
            <th scope="col" class="num">
              Took
            </th>
            <th scope="col" class="num">
              Credits
            </th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id} data-job-id={j.id} data-status={j.status} class={j.status === 'canceled' ? 'inactive' : ''}>
              <th scope="row" data-label="Job">
                <button type="button" class="link job-id" onClick={() => onOpen(j)} title={j.id} aria-label={`Open job ${j.id}`}>
                  <code>{j.id}</code>
                </button>
              </th>
              <td data-label="Status">
                <StatusCell job={j} />
              </td>
              <td data-label="Model">{j.model ?? '—'}</td>
              <td data-label="Mode">
                <span class={`badge mode-${j.mode}`}>{j.mode}</span>
              </td>
              <td
                data-label="Source"
                class="source"
                title={j.source.type === 'upload' ? `${sourceText(j)}, ${formatInt(j.source.bytes)} bytes` : j.source.url}
              >
                <span class="clip">{sourceText(j)}</span>
              </td>
              <td data-label="Created">
                <time dateTime={j.created_at} title={formatDateTime(j.created_at)}>
                  {formatAgo(j.created_at, now)}
                </time>
              </td>
              <td data-label="Audio" class="num">
                {j.audio_seconds === null ? '—' : formatDuration(j.audio_seconds)}
              </td>
              <td data-label="Took" class="num">
                {took(j, now)}
              </td>
              <td data-label="Credits" class="num">
                {j.credits_used === null ? '—' : formatInt(j.credits_used)}
              </td>
              <td class="actions">
                {active(j) && (
                  <button type="button" class="button small danger-outline" onClick={() => onCancel(j)} aria-label={`Cancel job ${j.id}`}>
                    Cancel
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function JobsPage() {
  const [status, setStatus] = useState<JobStatus | null>(null);
  /** Cursors of the pages before this one; the last is this page's own (null: the first page). */
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [page, setPage] = useState<JobPage | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [canceling, setCanceling] = useState<Job | null>(null);
  const [cancelBusy, setCancelBusy] = useState(false);
  const [cancelError, setCancelError] = useState<unknown>(null);
  const [message, setMessage] = useState('');
  const [opened, setOpened] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1] ?? null;
  const generation = useRef(0);

  const load = async () => {
    const mine = ++generation.current;
    try {
      const p = await dashboardApi.jobs({ limit: JOBS_PER_PAGE, cursor, status });
      // An answer to an older question (the filter or page changed meanwhile) is dropped.
      if (mine !== generation.current) return;
      setPage(p);
      setLoadError(null);
    } catch (err) {
      if (mine === generation.current) setLoadError(err);
    }
  };

  useEffect(() => {
    setPage(null);
    void load();
  }, [cursor, status]);

  // Queued and running jobs move on their own: ask again while the page shows one.
  const anyActive = page?.jobs.some(active) ?? false;
  useEffect(() => {
    if (!anyActive) return undefined;
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [anyActive, cursor, status]);

  const cancel = async () => {
    if (!canceling) return;
    setCancelBusy(true);
    setCancelError(null);
    try {
      const { job } = await dashboardApi.cancelJob(canceling.id);
      setPage((p) => p && { ...p, jobs: p.jobs.map((j) => (j.id === job.id ? job : j)) });
      setMessage(
        job.status === 'canceled'
          ? `Job ${job.id} canceled; nothing is charged for it.`
          : `Job ${job.id} had already ended (${job.status}).`,
      );
      setCanceling(null);
    } catch (err) {
      setCancelError(err);
    } finally {
      setCancelBusy(false);
    }
  };

  return (
    <>
      <header class="page-head row wrap between">
        <div>
          <h1>Jobs</h1>
          <p class="muted">
            Transcriptions of long audio that run in the background (<code>POST /api/v1/stt/jobs</code>), newest first.
          </p>
        </div>
        <div class="field">
          <label for="job-status">Status</label>
          <select
            id="job-status"
            value={status ?? ''}
            onChange={(e) => {
              const v = e.currentTarget.value;
              setStatus(v === '' ? null : (v as JobStatus));
              setCursors([null]);
            }}
          >
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s[0]!.toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </div>
      </header>
      <section class="card" aria-labelledby="jobs-title">
        <h2 id="jobs-title" class="visually-hidden">
          Your jobs
        </h2>
        <div role="status">{message && <p class="notice success">{message}</p>}</div>
        <ErrorNotice error={loadError} />
        {page === null && !loadError && <p class="muted">Loading…</p>}
        {page && page.jobs.length === 0 && (
          <p class="empty">
            {status ? `No ${status} jobs${cursors.length > 1 ? ' on this page' : ''}.` : 'No jobs yet.'} Create one with{' '}
            <code>POST /api/v1/stt/jobs</code> or <code>parla jobs create FILE</code>.
          </p>
        )}
        {page && page.jobs.length > 0 && (
          <JobTable jobs={page.jobs} onCancel={(j) => (setCancelError(null), setCanceling(j))} onOpen={(j) => setOpened(j.id)} />
        )}
        {page && (cursors.length > 1 || page.next_cursor) && (
          <nav class="pager" aria-label="Pages of jobs">
            <button
              type="button"
              class="button secondary small"
              disabled={cursors.length <= 1}
              onClick={() => setCursors((c) => c.slice(0, -1))}
            >
              Newer
            </button>
            <span class="muted small">Page {cursors.length}</span>
            <button
              type="button"
              class="button secondary small"
              disabled={!page.next_cursor}
              onClick={() => page.next_cursor && setCursors((c) => [...c, page.next_cursor])}
            >
              Older
            </button>
          </nav>
        )}
      </section>
      <JobDetailDialog id={opened} onClose={() => setOpened(null)} />
      <ConfirmDialog
        open={canceling !== null}
        title="Cancel this job?"
        confirmLabel="Cancel job"
        cancelLabel="Keep it"
        danger
        busy={cancelBusy}
        onConfirm={() => void cancel()}
        onCancel={() => setCanceling(null)}
      >
        <p>
          <code>{canceling?.id}</code> stops and produces no transcript; nothing is charged for it. This cannot be undone.
        </p>
        <ErrorNotice error={cancelError} />
      </ConfirmDialog>
    </>
  );
}
