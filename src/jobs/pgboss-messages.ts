// The pg-boss half of the PostgreSQL job queue (pgboss-queue.ts): one pg-boss message per API job,
// sent, fetched, failed back to retry, completed or cancelled. Every call takes the transaction of
// the stt_jobs row it goes with (pg-boss's `db` option), so the two never disagree after a crash.

import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { Q } from '../storage/postgres/database.js';

const QUEUE = 'parla-stt-jobs';

/** pg-boss's `db` option: run its statements on our transaction's client. */
function onClient(q: Q): PgBoss.Db {
  return { executeSql: async (text: string, values: unknown[]) => q.query(text, values) as Promise<{ rows: unknown[] }> };
}

export class BossMessages {
  private readonly boss: PgBoss;
  private started = false;

  /** `retryDelaySeconds`: pg-boss counts whole seconds and doubles from the first retry on (with jitter). */
  constructor(
    pool: pg.Pool,
    private readonly retryDelaySeconds: number,
    opts: { schema?: string; onError?: (err: Error) => void },
  ) {
    this.boss = new PgBoss({
      db: onClient(pool),
      schema: opts.schema ?? 'pgboss',
      // Cron scheduling is not used; supervision keeps pg-boss's expiry backstop and archive.
      schedule: false,
    });
    this.boss.on('error', (err: Error) => opts.onError?.(err));
  }

  async start(): Promise<void> {
    if (this.started) return;
    await this.boss.start();
    this.started = true;
  }

  /** Creates the queue once; its expiry is only a backstop at 23 h (pg-boss's maximum is 24 h) behind our own lease. */
  async createQueue(): Promise<void> {
    if (await this.boss.getQueue(QUEUE)) return;
    const retry = this.retryDelaySeconds;
    await this.boss.createQueue(QUEUE, {
      name: QUEUE,
      policy: 'standard',
      retryLimit: 1000,
      retryDelay: retry,
      retryBackoff: retry > 0,
      expireInSeconds: 23 * 3600,
    });
  }

  async stop(): Promise<void> {
    if (this.started) await this.boss.stop({ graceful: false, close: false, wait: true }).catch(() => undefined);
    this.started = false;
  }

  /**
   * The job's message. retryLimit is only a ceiling: stt_jobs.attempts against maxAttempts decides
   * when a job stops, so pg-boss must never be the one to give up first. The priority carries the
   * fair order (pg-boss fetches by priority, highest first, then age).
   */
  async send(q: Q, jobId: string, bossId: string, seq: number, delayMs: number): Promise<void> {
    const priority = -Math.min(seq, 2 ** 31 - 1);
    const retry = this.retryDelaySeconds;
    const startAfter = delayMs > 0 ? { startAfter: Math.ceil(delayMs / 1000) } : {};
    await this.boss.send(
      QUEUE,
      { jobId },
      { id: bossId, priority, retryLimit: 1000, retryDelay: retry, retryBackoff: retry > 0, ...startAfter, db: onClient(q) },
    );
  }

  /** Claims the next due message (FOR UPDATE SKIP LOCKED inside pg-boss), or undefined. */
  async fetch(q: Q): Promise<{ id: string; jobId: string } | undefined> {
    const [bj] = await this.boss.fetch<{ jobId: string }>(QUEUE, { batchSize: 1, db: onClient(q) });
    return bj ? { id: bj.id, jobId: bj.data.jobId } : undefined;
  }

  async complete(q: Q, bossId: string, status: string): Promise<void> {
    await this.boss.complete(QUEUE, bossId, { status }, { db: onClient(q) });
  }

  async cancel(q: Q, bossId: string): Promise<void> {
    await this.boss.cancel(QUEUE, bossId, { db: onClient(q) });
  }

  /** Back to pg-boss's retry (counted, with backoff). */
  async fail(q: Q, bossId: string, reason: string): Promise<void> {
    await this.boss.fail(QUEUE, bossId, { reason }, { db: onClient(q) });
  }
}
