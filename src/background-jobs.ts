// The job work of one node, started by the server (src/server.ts) and by tests that run jobs: the
// runner, the webhook dispatcher and the retention timer (docs/jobs.md). Wiring, beside server.ts:
// it stands above everything it starts (docs/architecture.md, "Floors").

import os from 'node:os';
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Services } from './services.js';
import { JobRunner } from './jobs/runner.js';
import { fetchPolicy, jobsDir } from './jobs/settings.js';
import { WebhookDispatcher } from './jobs/webhooks.js';
import { newWebhookSecret } from './jobs/webhook-signature.js';
import type { JobDialects } from './jobs/dialect.js';
import { DEEPGRAM_DIALECT, deepgramJobDialect } from './compat/deepgram/listen-callback.js';
import { VERSION } from './routes/health.js';

const PURGE_EVERY_MS = 3600_000;

export interface JobWork {
  runner: JobRunner;
  dispatcher: WebhookDispatcher;
  /** Purges finished jobs past retention now (the timer does it hourly); returns how many. */
  purge(): Promise<number>;
  stop(): Promise<void>;
}

export function startJobWork(services: Services, opts: { webhookScheduleMs?: readonly number[]; pollMs?: number } = {}): JobWork {
  const { config, jobs, store, log, metrics } = services;
  const dir = jobsDir(config.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const policy = fetchPolicy(config);
  // The compatible doors whose requests run as jobs (src/jobs/dialect.ts): Deepgram's callback.
  const dialects: JobDialects = new Map([[DEEPGRAM_DIALECT, deepgramJobDialect(VERSION)]]);
  const runner = new JobRunner(
    {
      queue: jobs.queue,
      stt: services.stt,
      store,
      billing: services.billing,
      limiter: services.limiter,
      config,
      log,
      dir,
      policy,
      dialects,
      nodeId: `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      onFinished: (status, seconds) => {
        metrics.observeJob(status, seconds);
        // Its webhook is due now: sent at once, not at the dispatcher's next poll.
        dispatcher.wake();
      },
    },
    {
      concurrency: config.jobs.concurrency,
      accountConcurrency: config.jobs.accountConcurrency,
      leaseMs: config.jobs.leaseSeconds * 1000,
      ...(opts.pollMs ? { pollMs: opts.pollMs } : {}),
    },
  );
  const dispatcher = new WebhookDispatcher({
    queue: jobs.queue,
    secretFor: (accountId) => store.getWebhookSecret(accountId, newWebhookSecret()),
    policy,
    dialects,
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
  const abortJob = (id: string) => runner.abortJob(id);
  jobs.events.on('enqueued', wake);
  jobs.events.on('canceled', abortJob);
  runner.start();
  dispatcher.start(1000);
  return {
    runner,
    dispatcher,
    purge,
    async stop() {
      clearInterval(timer);
      jobs.events.off('enqueued', wake);
      jobs.events.off('canceled', abortJob);
      await Promise.all([runner.stop(), dispatcher.stop()]);
    },
  };
}
