// The job work of one node, started by the server (src/server.ts) and by tests that run jobs: the
// runner, the webhook dispatcher and the retention timer (docs/jobs.md).

import os from 'node:os';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.js';
import type { FetchPolicy } from '../net/safe-fetch.js';
import { JobRunner } from './runner.js';
import { WebhookDispatcher } from './webhooks.js';
import { newWebhookSecret } from './webhook-signature.js';

const PURGE_EVERY_MS = 3600_000;

export interface JobWork {
  runner: JobRunner;
  dispatcher: WebhookDispatcher;
  /** Purges finished jobs past retention now (the timer does it hourly); returns how many. */
  purge(): Promise<number>;
  stop(): Promise<void>;
}

/** Where uploads and downloads of jobs are kept while their jobs run. */
export function jobsDir(dataDir: string): string {
  return path.join(dataDir, 'jobs');
}

export function fetchPolicy(services: Services): FetchPolicy {
  return { allowPrivate: services.config.jobs.fetchAllowPrivate, allowHosts: services.config.jobs.fetchAllowHosts };
}

export function startJobWork(services: Services, opts: { webhookScheduleMs?: readonly number[]; pollMs?: number } = {}): JobWork {
  const { config, jobs, store, log, metrics } = services;
  const dir = jobsDir(config.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const policy = fetchPolicy(services);
  const runner = new JobRunner(
    {
      queue: jobs.queue,
      stt: services.stt,
      store,
      limiter: services.limiter,
      config,
      log,
      dir,
      policy,
      nodeId: `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      onFinished: (status, seconds) => metrics.observeJob(status, seconds),
    },
    { concurrency: config.jobs.concurrency, leaseMs: config.jobs.leaseSeconds * 1000, ...(opts.pollMs ? { pollMs: opts.pollMs } : {}) },
  );
  const dispatcher = new WebhookDispatcher({
    queue: jobs.queue,
    secretFor: (accountId) => store.getWebhookSecret(accountId, newWebhookSecret()),
    policy,
    ...(opts.webhookScheduleMs ? { scheduleMs: opts.webhookScheduleMs } : {}),
    onAttempt: (a) => metrics.observeWebhookAttempt(a),
  });
  const purge = () => jobs.queue.purgeFinished(new Date(Date.now() - config.jobs.retentionDays * 86400_000));
  const purgeLogged = () => {
    purge().then(
      (n) => n > 0 && log.info({ purged: n }, 'finished jobs past retention purged'),
      (err: unknown) => log.warn({ err }, 'purging finished jobs failed'),
    );
  };
  const timer = setInterval(purgeLogged, PURGE_EVERY_MS);
  timer.unref();
  purgeLogged();
  const wake = () => runner.wake();
  jobs.events.on('enqueued', wake);
  runner.start();
  dispatcher.start(1000);
  return {
    runner,
    dispatcher,
    purge,
    async stop() {
      clearInterval(timer);
      jobs.events.off('enqueued', wake);
      await Promise.all([runner.stop(), dispatcher.stop()]);
    },
  };
}
