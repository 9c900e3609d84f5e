// One job opened from the Jobs table: what it was asked to do, when it ran, its transcript (the
// result in the job's response_format, with segment times when the format has them) and every
// attempt to deliver its webhook. A modal <dialog>, as the confirmations are: Escape or Close
// gives the focus back to the row's button. A job still queued or running is asked again every
// few seconds, so it turns into its transcript without a reload.

import { useEffect, useRef, useState } from 'preact/hooks';
import { dashboardApi, type JobDetail } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatDateTime, formatDuration, formatInt, formatSeconds } from '../format';

const REFRESH_MS = 3000;

interface Segment {
  start: number;
  end: number;
  text: string;
  speaker: string | null;
}

/** The transcript's text and segments from a JSON result; text, srt and vtt results are strings. */
function readResult(result: unknown): { text: string; segments: Segment[] } | null {
  if (typeof result === 'string') return { text: result, segments: [] };
  if (result === null || typeof result !== 'object') return null;
  const r = result as { text?: unknown; segments?: unknown };
  const segments: Segment[] = [];
  if (Array.isArray(r.segments)) {
    for (const s of r.segments as Array<Record<string, unknown>>) {
      if (!s || typeof s.start !== 'number' || typeof s.end !== 'number' || typeof s.text !== 'string') continue;
      const speaker = typeof s.speaker === 'number' || typeof s.speaker === 'string' ? String(s.speaker) : null;
      segments.push({ start: s.start, end: s.end, text: s.text, speaker });
    }
  }
  return { text: typeof r.text === 'string' ? r.text : segments.map((s) => s.text).join(' '), segments };
}

function took(job: JobDetail): string {
  if (!job.started_at) return '—';
  const end = job.finished_at ? Date.parse(job.finished_at) : Date.now();
  return formatDuration((end - Date.parse(job.started_at)) / 1000);
}

function Summary({ job }: { job: JobDetail }) {
  const source = job.source.type === 'url' ? job.source.url : `${job.source.filename ?? 'upload'} (${formatInt(job.source.bytes)} bytes)`;
  const rows: Array<[string, string]> = [
    ['Status', job.status],
    ['Mode', job.mode],
    ['Model', job.model ?? '—'],
    ['Language', job.language ?? 'detected'],
    ['Format', job.response_format ?? 'json'],
    ['Source', source],
    ['Created', formatDateTime(job.created_at)],
    ['Started', job.started_at ? formatDateTime(job.started_at) : '—'],
    ['Finished', job.finished_at ? formatDateTime(job.finished_at) : '—'],
    ['Took', took(job)],
    ['Audio', job.audio_seconds === null ? '—' : formatDuration(job.audio_seconds)],
    ['Credits', job.credits_used === null ? '—' : formatInt(job.credits_used)],
    ['Runs', String(job.attempts)],
  ];
  return (
    <dl class="job-facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd data-fact={k}>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function Transcript({ job }: { job: JobDetail }) {
  if (job.status === 'failed') {
    return (
      <p class="notice error">
        {job.error?.code}: {job.error?.message}
      </p>
    );
  }
  if (job.status !== 'completed')
    return <p class="muted">{job.status === 'canceled' ? 'Canceled: no transcript.' : 'No transcript yet: the job has not finished.'}</p>;
  if (job.zero_retention) return <p class="muted">Zero retention: the transcript went to the webhook only and was not kept.</p>;
  if (job.result_deleted) return <p class="muted">The transcript was deleted.</p>;
  const t = readResult(job.result);
  if (!t) return <p class="muted">No transcript.</p>;
  return (
    <>
      <p class="job-transcript">{t.text || <span class="muted">(no speech found)</span>}</p>
      {t.segments.length > 0 && (
        <div class="table-scroll">
          <table class="segments-table">
            <caption class="visually-hidden">Segments with their times</caption>
            <thead>
              <tr>
                <th scope="col" class="num">
                  Start
                </th>
                <th scope="col" class="num">
                  End
                </th>
                {t.segments.some((s) => s.speaker !== null) && <th scope="col">Speaker</th>}
                <th scope="col">Text</th>
              </tr>
            </thead>
            <tbody>
              {t.segments.map((s, i) => (
                <tr key={i}>
                  <td class="num">{formatSeconds(s.start)}</td>
                  <td class="num">{formatSeconds(s.end)}</td>
                  {t.segments.some((x) => x.speaker !== null) && <td>{s.speaker ?? ''}</td>}
                  <td class="wrap">{s.text}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Webhook({ job }: { job: JobDetail }) {
  if (!job.webhook || !job.callback_url) return <p class="muted">No webhook: the job was created without callback_url.</p>;
  const { state, attempts } = job.webhook;
  return (
    <>
      <p>
        <code class="wrap">{job.callback_url}</code> <span class={`badge webhook-${state}`}>{state}</span>
      </p>
      {attempts.length === 0 ? (
        <p class="muted">No delivery attempted yet.</p>
      ) : (
        <div class="table-scroll">
          <table class="attempts-table">
            <caption class="visually-hidden">Delivery attempts</caption>
            <thead>
              <tr>
                <th scope="col" class="num">
                  #
                </th>
                <th scope="col">At</th>
                <th scope="col">Answer</th>
                <th scope="col" class="num">
                  Took
                </th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((a) => (
                <tr key={a.attempt} data-attempt={a.attempt}>
                  <td class="num">{a.attempt}</td>
                  <td>{formatDateTime(a.at)}</td>
                  <td class="wrap">
                    <span class={a.ok ? 'badge job-completed' : 'badge job-failed'}>{a.status ?? 'no answer'}</span>
                    {a.error && <span class="muted small"> {a.error}</span>}
                  </td>
                  <td class="num">{formatInt(a.duration_ms)} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function JobDetailDialog({ id, onClose }: { id: string | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [job, setJob] = useState<JobDetail | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || id === null) return undefined;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setJob(null);
    setError(null);
    dialog.showModal();
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const { job: j } = await dashboardApi.job(id);
        if (stop) return;
        setJob(j);
        setError(null);
        if (j.status === 'queued' || j.status === 'running') timer = setTimeout(() => void load(), REFRESH_MS);
      } catch (err) {
        if (!stop) setError(err);
      }
    };
    void load();
    return () => {
      stop = true;
      clearTimeout(timer);
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, [id]);

  return (
    <dialog
      ref={ref}
      class="dialog wide"
      aria-labelledby="job-detail-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <div class="row between">
        <h2 id="job-detail-title">
          Job <code>{id}</code>
        </h2>
        <button type="button" class="button secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorNotice error={error} />
      {job === null && !error && <p class="muted">Loading…</p>}
      {job && (
        <div class="dialog-body job-detail">
          <Summary job={job} />
          <h3>Transcript</h3>
          <Transcript job={job} />
          <h3>Webhook</h3>
          <Webhook job={job} />
        </div>
      )}
    </dialog>
  );
}
