// The job runner: one per node. It claims queued jobs (or jobs whose node died) up to its
// concurrency, and runs each: the account's concurrency slot -> the audio (the stored upload, or a
// download through the SSRF-safe fetcher) -> the STT service (decode, hold, recognize, settle) ->
// the result in the job's response_format -> complete. docs/jobs.md, "Intended wiring".
//
// Billing (docs/jobs.md): the hold is named `<job id>:<attempt>` and the usage row is keyed by the
// job id, and the runner settles first, then completes. A run taken over after its node died
// releases the dead runs' holds at once (it knows their names); a run that crashed between settling
// and completing is settled again by its successor, and the ledger's one row per request id makes
// that second settlement give its hold back whole. A failed or canceled job costs nothing: right
// before settling the run claims the right to bill (JobQueue.beginSettle), which a cancel that came
// first refuses and which makes a later cancel leave the job to complete (decision #35); a cancel
// on this node aborts the run at once (abortJob), one on another node at the next heartbeat.

import { rm, readFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import type { Limiter } from '../limits/limiter.js';
import { acquireLease, type SlotLease } from '../limits/slot-lease.js';
import type { SttService } from '../stt/service.js';
import type { AuthContext } from '../accounts/auth-context.js';
import type { Billing } from '../accounts/billing.js';
import { ApiError, isApiError } from '../errors.js';
import { serviceErrorToApiError } from '../faults/translate.js';
import { renderTranscription } from '../stt/response-formats.js';
import { DownloadTooSlowError, UrlFetchFailedError, type FetchPolicy } from '../net/safe-fetch.js';
import { safeDownload } from '../net/safe-download.js';
import { FINISHED, type Claimed, type JobError, type JobQueue } from './queue.js';
import { requestOf } from './job-params.js';
import { dialectOf, type JobDialects } from './dialect.js';

/** Assumed seconds of work per second of audio, for the progress estimate only (capped below 1). */
const ESTIMATED_RTF = 0.5;

export interface JobRunnerDeps {
  queue: JobQueue;
  stt: SttService;
  store: Store;
  /** Every hold of a run goes through it: renewed at each heartbeat, released by name. */
  billing: Billing;
  limiter: Limiter;
  config: Config;
  log: FastifyBaseLogger;
  /** Where downloads go (<dataDir>/jobs). */
  dir: string;
  policy: FetchPolicy;
  /** This node's worker id in leases. */
  nodeId: string;
  /** The compatible doors' job dialects (src/jobs/dialect.ts): how their jobs' results are rendered. */
  dialects?: JobDialects;
  /** A job ended on this node: its final status and seconds since it first started (metrics). */
  onFinished?: (status: string, seconds: number) => void;
}

export interface JobRunnerOptions {
  concurrency: number;
  /**
   * Jobs of one account this runner runs at once (default: all of `concurrency`). Claims pass
   * over the accounts at it, so one account cannot take every runner of the node (decision #36).
   */
  accountConcurrency?: number;
  leaseMs: number;
  /** How often to look for work when nothing wakes the runner. */
  pollMs?: number;
  /** Between heartbeats (default a quarter of the lease, at most 15 s). */
  heartbeatMs?: number;
}

export class JobRunner {
  private readonly active = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  /** The runs in flight by job id, so a cancel on this node stops its run at once (abortJob). */
  private readonly byJob = new Map<string, AbortController>();
  /** Runs in flight per account (claims skip the accounts at their share). */
  private readonly perAccount = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private claiming: Promise<void> | null = null;
  private readonly heartbeatMs: number;

  constructor(
    private readonly d: JobRunnerDeps,
    private readonly o: JobRunnerOptions,
  ) {
    // Four heartbeats per lease, at most every 15 s: a missed one or two never loses a live job.
    this.heartbeatMs = o.heartbeatMs ?? Math.min(15_000, Math.floor(o.leaseMs / 4));
  }

  start(): void {
    if (!this.stopped || this.o.concurrency <= 0) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks for work now (a job was just enqueued on this node). */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  /**
   * Stops claiming and abandons the jobs in flight: their holds are released and their leases run
   * out, so the next node to claim (or this one restarted) runs them again from the start.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.claiming;
    for (const a of this.aborts) a.abort(STOPPING);
    await Promise.allSettled([...this.active]);
  }

  /** The job was canceled on this node: its run (if it runs here) stops now, not at its next heartbeat. */
  abortJob(jobId: string): void {
    this.byJob.get(jobId)?.abort(CANCELED);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.claiming) return;
      this.claiming = this.fill()
        .catch((err: unknown) => this.d.log.warn({ err }, 'claiming jobs failed'))
        .finally(() => {
          this.claiming = null;
          this.schedule(this.o.pollMs ?? 1000);
        });
    }, ms);
    this.timer.unref();
  }

  /** Claims jobs while there is room. */
  private async fill(): Promise<void> {
    const share = this.o.accountConcurrency ?? this.o.concurrency;
    while (!this.stopped && this.active.size < this.o.concurrency) {
      const skipAccounts = [...this.perAccount].filter(([, n]) => n >= share).map(([a]) => a);
      const claimed = await this.d.queue.claim(this.d.nodeId, this.o.leaseMs, { skipAccounts });
      if (!claimed) return;
      const account = claimed.job.accountId;
      this.perAccount.set(account, (this.perAccount.get(account) ?? 0) + 1);
      const run: Promise<void> = this.run(claimed)
        .catch((err: unknown) => this.d.log.error({ err, job: claimed.job.id }, 'job run failed'))
        .finally(() => {
          this.active.delete(run);
          const left = (this.perAccount.get(account) ?? 1) - 1;
          if (left > 0) this.perAccount.set(account, left);
          else this.perAccount.delete(account);
          this.wake();
        });
      this.active.add(run);
    }
  }

  private async run({ job, lease }: Claimed): Promise<void> {
    const { queue, store, billing, limiter, config, stt, log } = this.d;
    const abort = new AbortController();
    this.aborts.add(abort);
    this.byJob.set(job.id, abort);
    const holdId = `${job.id}:${job.attempts}`;
    let progress = 0;
    let slot: SlotLease | null = null;
    let download: string | null = null;
    let recognizing: { at: number; seconds: number } | null = null;
    let beating: Promise<void> | null = null;
    let auth: AuthContext | null = null;
    const heartbeat = async (): Promise<void> => {
      if (recognizing)
        progress = Math.max(
          progress,
          Math.min(0.95, 0.2 + (0.75 * (Date.now() - recognizing.at)) / 1000 / Math.max(1, recognizing.seconds * ESTIMATED_RTF)),
        );
      const alive = await queue.heartbeat(lease, this.o.leaseMs, progress).catch((err: unknown) => {
        log.warn({ err, job: job.id }, 'job heartbeat failed');
        return true; // a database hiccup is not a lost lease; the next heartbeat tells
      });
      if (!alive) {
        abort.abort(new Error('the job was canceled or taken over'));
        // Give the credits back now, not when the recognition in flight ends (it cannot be
        // interrupted); a canceled job's audio goes now too (a job taken over keeps it for its new run).
        await billing.releaseHold(holdId).catch(() => undefined);
        // (undefined: the queue could not be read; the audio stays until it is known the job ended.)
        const now = await queue.get(job.accountId, job.id).catch(() => undefined);
        if (job.source.type === 'upload' && (now === null || (now && FINISHED.has(now.status)))) await rm(job.source.path, { force: true });
        return;
      }
      slot?.renew();
      if (auth) await billing.renewHold(auth, holdId);
    };
    // A beat asked for while one is in flight follows it (the progress it carries is not lost),
    // until the run ends (`ending`).
    let again = false;
    let ending = false;
    const beatNow = () => {
      if (ending) return;
      if (beating) {
        again = true;
        return;
      }
      beating = heartbeat().finally(() => {
        beating = null;
        if (again) {
          again = false;
          beatNow();
        }
      });
    };
    const stopBeating = async () => {
      ending = true;
      clearInterval(beat);
      await beating;
    };
    const beat = setInterval(beatNow, this.heartbeatMs);
    try {
      // The runs before this one died (their leases ran out): their holds go back now.
      for (let a = 1; a < job.attempts; a++) await billing.releaseHold(`${job.id}:${a}`);
      const [account, key] = await Promise.all([store.getAccount(job.accountId), store.getKey(job.keyId)]);
      if (!account || !key) throw new ApiError('NOT_FOUND', { message: "The job's account or key no longer exists." });
      auth = { account, key, mode: job.mode };
      const admitted = await acquireLease(limiter, account.id, config.product.plans[account.plan].concurrent);
      if (!admitted.lease) {
        // The account is at its concurrency limit: the job waits queued (not counted as a run)
        // and is claimed again once a slot may have freed.
        await queue.release(lease, Math.min(10_000, Math.max(1000, admitted.retryAfter * 1000)));
        return;
      }
      slot = admitted.lease;
      const options = requestOf(job.params);
      // The job's request meets the batch endpoint's rules now too (the same check as when it was
      // made): a model unbound since then fails before its audio is fetched.
      stt.checkRequest(auth, options, 'universal');
      let audioPath: string;
      if (job.source.type === 'upload') audioPath = job.source.path;
      else {
        download = (
          await safeDownload(job.source.url, {
            policy: this.d.policy,
            maxBytes: config.jobs.maxBytes,
            dir: this.d.dir,
            limits: config.jobs.download,
            signal: abort.signal,
          })
        ).path;
        audioPath = download;
      }
      progress = 0.1;
      beatNow();
      // The decoder takes the file's bytes (in a decoder process of its own, decision #42).
      const read = await readFile(audioPath).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT' || job.source.type !== 'upload') throw err;
        throw new ApiError('INTERNAL_ERROR', {
          message:
            'The uploaded audio is not on the node that ran the job: with several nodes, <dataDir>/jobs must be shared storage (docs/jobs.md).',
        });
      });
      const dialect = dialectOf(job, this.d.dialects);
      const audio = dialect?.prepareAudio ? dialect.prepareAudio(read, job) : read;
      const transcribing = stt.transcribe(
        auth,
        {
          requestId: job.id,
          endpoint: 'universal',
          options,
          audio: new Uint8Array(audio.buffer, audio.byteOffset, audio.byteLength),
          holdId,
          onDecoded: (seconds) => {
            progress = 0.2;
            recognizing = { at: Date.now(), seconds };
            beatNow();
          },
          // A long recording reports each piece recognized (src/stt/long-audio/): real progress
          // over the time estimate, which stays for recordings recognized in one pass.
          onProgress: (fraction) => {
            progress = Math.max(progress, Math.min(0.95, 0.2 + 0.75 * fraction));
          },
          // The queue decides cancel vs bill once: refused (canceled, or taken over) -> nothing billed.
          beforeSettle: async () => {
            abort.signal.throwIfAborted();
            if (await queue.beginSettle(lease)) return;
            abort.abort(CANCELED);
            abort.signal.throwIfAborted();
          },
        },
        abort.signal,
      );
      // A recognition cannot be interrupted: an aborted run stops waiting for it (its place on the
      // node frees now) and the recognition's end is dropped unbilled (the service checks the signal).
      transcribing.catch(() => undefined);
      const t = await Promise.race([transcribing, aborted(abort.signal)]);
      const result = dialect ? await dialect.render(t, job, audio) : renderTranscription(options, t);
      await stopBeating();
      if (!(await queue.complete(lease, { result, creditsUsed: t.credits })))
        log.info({ job: job.id }, 'job finished after it was canceled or taken over; its result is dropped');
      // The audio goes the moment the job is complete (docs/jobs.md, Retention), not after the
      // slot's release below: a client that reads `completed` finds it gone.
      else if (job.source.type === 'upload') await rm(job.source.path, { force: true });
    } catch (err) {
      await stopBeating();
      if (abort.signal.aborted) {
        log.info({ job: job.id, reason: String(abort.signal.reason) }, 'job run stopped');
        // Its credits go back now (the abandoned recognition's own release may come too late).
        await billing.releaseHold(holdId).catch(() => undefined);
        // A node shutting down hands its jobs back at once, uncounted: another node (or this one
        // restarted) runs them without waiting for the lease to run out.
        if (abort.signal.reason === STOPPING) await queue.release(lease, 0).catch(() => false);
      } else if (serviceErrorToApiError(err)?.code === 'SERVICE_OVERLOADED') {
        // Every recognizer (or the pool) is busy: the node is full, the job is not at fault. It
        // waits queued and uncounted, as at its account's concurrency limit, and is claimed again
        // after the Retry-After (decision #99): a busy spell never uses up a job's runs.
        log.info({ job: job.id }, 'the node is busy; the job waits queued');
        await billing.releaseHold(holdId).catch(() => undefined);
        const retryAfter = (err as { retryAfter?: number }).retryAfter ?? 1;
        await queue.release(lease, Math.min(10_000, Math.max(1000, retryAfter * 1000))).catch(() => false);
      } else {
        const { error, retry } = jobError(err);
        if (error.code === 'INTERNAL_ERROR') log.error({ err, job: job.id }, 'job failed');
        await queue.fail(lease, error, { retry });
      }
    } finally {
      clearInterval(beat);
      this.aborts.delete(abort);
      if (this.byJob.get(job.id) === abort) this.byJob.delete(job.id);
      await slot?.release();
      if (download) await rm(download, { force: true });
      const now = await queue.get(job.accountId, job.id).catch(() => undefined);
      if (now === null || (now && FINISHED.has(now.status))) {
        // The audio goes as soon as the job ends (docs/jobs.md, Retention).
        if (job.source.type === 'upload') await rm(job.source.path, { force: true });
        if (now?.startedAt && now.finishedAt) this.d.onFinished?.(now.status, (now.finishedAt.getTime() - now.startedAt.getTime()) / 1000);
      }
    }
  }
}

/** The abort reason of runs abandoned because the node stops. */
const STOPPING = new Error('the node is stopping');
const CANCELED = new Error('the job was canceled or taken over');

/** Rejects when the signal aborts (never resolves). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Errors of a moment: the run is tried again later (docs/jobs.md, Failures). */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['CREDIT_CHECK_FAILED', 'SERVICE_OVERLOADED']);

/**
 * The job's error object (the edges' mapping: src/faults/translate.ts), and whether the run may be
 * tried again: a network error or 5xx of the audio's server, an unreachable store, a full engine.
 * A source too slow (under the minimum rate, past the total time) is not tried again: it would
 * hold a runner as long again.
 */
export function jobError(err: unknown): { error: JobError; retry: boolean } {
  const mapped = serviceErrorToApiError(err);
  const transient =
    (err instanceof UrlFetchFailedError && !(err instanceof DownloadTooSlowError) && (err.status === null || err.status >= 500)) ||
    (mapped !== null && TRANSIENT_CODES.has(mapped.code));
  if (isApiError(mapped)) {
    const details = Object.keys(mapped.details).length ? { details: mapped.details as Record<string, unknown> } : {};
    return { error: { code: mapped.code, message: mapped.message, ...details }, retry: transient };
  }
  return { error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred while the job ran.' }, retry: false };
}
