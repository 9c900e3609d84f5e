// One contract suite for every JobQueue implementation (SQLite, PostgreSQL with pg-boss).
// Two queue instances on the same database stand for two nodes (or one node before and after a
// restart); a shared clock steps over leases and retention without sleeping.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { bodyHash, IdempotencyConflictError, type JobQueue, type NewJob, type QueueOptions } from '../../src/jobs/queue.js';

export interface QueueHandle {
  /** Opens one more queue instance on the same database (another node, or a restarted one). */
  open(opts: QueueOptions): Promise<JobQueue>;
  cleanup(): Promise<void>;
}

/** A clock the test moves by hand. */
export class TestClock {
  private offset = 0;
  now = (): Date => new Date(Date.now() + this.offset);
  advance(ms: number): void {
    this.offset += ms;
  }
}

export function newJob(accountId: string, extra: Partial<NewJob> = {}): NewJob {
  return {
    accountId,
    keyId: 'key_test',
    mode: 'live',
    params: { model: 'whisper-base', language: 'en', response_format: 'json' },
    source: { type: 'url', url: 'https://audio.example.com/a.mp3' },
    callbackUrl: null,
    idempotencyKey: null,
    bodyHash: null,
    ...extra,
  };
}

const acct = () => `acc_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

export function runQueueContract(name: string, handle: () => Promise<QueueHandle>): void {
  describe(`JobQueue contract: ${name}`, () => {
    let h: QueueHandle;
    let q: JobQueue;
    const clock = new TestClock();
    const opened: JobQueue[] = [];
    const open = async (opts: QueueOptions = {}) => {
      const x = await h.open({ now: clock.now, ...opts });
      await x.migrate();
      opened.push(x);
      return x;
    };
    /** Claims until one job of `account` comes up (other tests' jobs share the queue: complete them). */
    const claimOwn = async (queue: JobQueue, account: string, worker: string, leaseMs = 60_000) => {
      for (let i = 0; i < 500; i++) {
        const c = await queue.claim(worker, leaseMs);
        if (!c) return null;
        if (c.job.accountId === account) return c;
        await queue.complete(c.lease, { result: null, creditsUsed: 0 });
      }
      throw new Error('queue never drained');
    };

    before(async () => {
      h = await handle();
      q = await open();
      await q.migrate(); // idempotent
    });
    after(async () => {
      for (const x of opened) await x.close();
      await h.cleanup();
    });

    test('enqueue, get scoped to the account, list newest first with cursor paging', async () => {
      const a = acct();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const { job, created } = await q.enqueue(newJob(a, { params: { model: 'm', n: i } }));
        assert.equal(created, true);
        assert.match(job.id, /^job_[A-Za-z0-9]{20}$/);
        assert.equal(job.status, 'queued');
        assert.equal(job.attempts, 0);
        assert.equal(job.progress, null);
        assert.deepEqual(job.params, { model: 'm', n: i });
        assert.deepEqual(job.source, { type: 'url', url: 'https://audio.example.com/a.mp3' });
        ids.push(job.id);
        clock.advance(1);
      }
      const got = await q.get(a, ids[0]!);
      assert.equal(got?.id, ids[0]);
      assert.equal(await q.get(acct(), ids[0]!), null, "another account's job is not found");
      assert.equal(await q.get(a, 'job_AAAAAAAAAAAAAAAAAAAA'), null);

      const p1 = await q.list(a, { limit: 2 });
      assert.deepEqual(
        p1.jobs.map((j) => j.id),
        [ids[4], ids[3]],
      );
      assert.ok(p1.nextCursor);
      const p2 = await q.list(a, { limit: 2, cursor: p1.nextCursor });
      assert.deepEqual(
        p2.jobs.map((j) => j.id),
        [ids[2], ids[1]],
      );
      const p3 = await q.list(a, { limit: 2, cursor: p2.nextCursor });
      assert.deepEqual(
        p3.jobs.map((j) => j.id),
        [ids[0]],
      );
      assert.equal(p3.nextCursor, null);
      assert.deepEqual((await q.list(acct())).jobs, []);
      assert.equal((await q.list(a, { status: 'queued' })).jobs.length, 5);
      assert.equal((await q.list(a, { status: 'completed' })).jobs.length, 0);
      // A cursor that does not decode pages from the start instead of failing.
      assert.equal((await q.list(a, { limit: 1, cursor: 'not-a-cursor' })).jobs[0]?.id, ids[4]);
    });

    test('idempotency: same key and body replay the job; another body conflicts; the key is per account and for 24 h', async () => {
      const a = acct();
      const key = `idem-${randomUUID()}`;
      const hash = bodyHash(['{"url":"https://x/a.mp3"}']);
      const first = await q.enqueue(newJob(a, { idempotencyKey: key, bodyHash: hash }));
      const again = await q.enqueue(newJob(a, { idempotencyKey: key, bodyHash: hash }));
      assert.equal(first.created, true);
      assert.equal(again.created, false);
      assert.equal(again.job.id, first.job.id);
      await assert.rejects(
        q.enqueue(newJob(a, { idempotencyKey: key, bodyHash: bodyHash(['{"url":"https://x/b.mp3"}']) })),
        (e: unknown) => e instanceof IdempotencyConflictError && e.jobId === first.job.id,
      );
      const other = await q.enqueue(newJob(acct(), { idempotencyKey: key, bodyHash: hash }));
      assert.equal(other.created, true);
      assert.notEqual(other.job.id, first.job.id);
      assert.equal((await q.list(a)).jobs.length, 1, 'no second job');
      clock.advance(24 * 3600_000 + 1000);
      const later = await q.enqueue(newJob(a, { idempotencyKey: key, bodyHash: hash }));
      assert.equal(later.created, true, 'after 24 h the key starts a new job');
      assert.notEqual(later.job.id, first.job.id);
      assert.notEqual(bodyHash(['ab', 'c']), bodyHash(['a', 'bc']));
      // The same request sent twice at once through two nodes: one job.
      const nodeB = await open();
      const racing = `race-${randomUUID()}`;
      const both = await Promise.all([q, nodeB, q, nodeB].map((x) => x.enqueue(newJob(a, { idempotencyKey: racing, bodyHash: hash }))));
      assert.equal(new Set(both.map((r) => r.job.id)).size, 1);
      assert.equal(both.filter((r) => r.created).length, 1);
    });

    test('claim, heartbeat with progress, complete exactly once; the record shows result, credits and a pending webhook', async () => {
      const a = acct();
      const { job } = await q.enqueue(newJob(a, { callbackUrl: 'https://hooks.example.com/parla' }));
      const c = await claimOwn(q, a, 'w1');
      assert.ok(c);
      assert.equal(c.job.id, job.id);
      assert.equal(c.job.status, 'running');
      assert.equal(c.job.attempts, 1);
      assert.ok(c.job.startedAt);
      assert.equal(await q.heartbeat(c.lease, 60_000, 0.25), true);
      assert.equal((await q.get(a, job.id))?.progress, 0.25);
      assert.equal(await q.heartbeat(c.lease, 60_000, 7), true);
      assert.equal((await q.get(a, job.id))?.progress, 1, 'progress is clamped to 0-1');
      const result = { text: 'hello world', segments: [{ id: 0, start: 0, end: 1.5, text: 'hello world' }] };
      assert.equal(await q.complete(c.lease, { result, creditsUsed: 12 }), true);
      assert.equal(await q.complete(c.lease, { result, creditsUsed: 12 }), false, 'a second completion is refused');
      assert.equal(await q.fail(c.lease, { code: 'ENGINE_ERROR', message: 'x' }), false);
      assert.equal(await q.heartbeat(c.lease, 60_000), false);
      const done = (await q.get(a, job.id))!;
      assert.equal(done.status, 'completed');
      assert.equal(done.progress, 1);
      assert.deepEqual(done.result, result);
      assert.equal(done.creditsUsed, 12);
      assert.ok(done.finishedAt);
      assert.equal(done.error, null);
      assert.equal(done.webhook.state, 'pending');
      assert.match(done.webhook.id ?? '', /^whk_/);
    });

    test('a dead worker: its lease runs out and another node takes the job over; the dead one can no longer end it', async () => {
      const nodeB = await open();
      const a = acct();
      const { job } = await q.enqueue(newJob(a));
      const first = await claimOwn(q, a, 'node-a', 1000);
      assert.ok(first);
      assert.equal(await claimOwn(nodeB, a, 'node-b', 1000), null, 'a live lease is not taken');
      clock.advance(1001); // node A stopped heartbeating (killed)
      const second = await claimOwn(nodeB, a, 'node-b', 60_000);
      assert.ok(second, 'the expired lease is taken over');
      assert.equal(second.job.id, job.id);
      assert.equal(second.job.attempts, 2);
      assert.notEqual(second.lease.token, first.lease.token);
      assert.equal(await q.heartbeat(first.lease, 1000), false, 'the old worker learns it lost the job');
      assert.equal(await q.complete(first.lease, { result: { text: 'stale' }, creditsUsed: 1 }), false);
      assert.equal(await nodeB.complete(second.lease, { result: { text: 'fresh' }, creditsUsed: 2 }), true);
      const done = (await q.get(a, job.id))!;
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.result, { text: 'fresh' });
      assert.equal(done.creditsUsed, 2);
    });

    test('the same node after a restart takes over its own job', async () => {
      const a = acct();
      const beforeRestart = await open();
      const { job } = await beforeRestart.enqueue(newJob(a));
      const c = await claimOwn(beforeRestart, a, 'node-a', 500);
      assert.ok(c);
      await beforeRestart.close(); // the process died holding the lease
      opened.splice(opened.indexOf(beforeRestart), 1);
      clock.advance(501);
      const restarted = await open();
      const again = await claimOwn(restarted, a, 'node-a', 60_000);
      assert.equal(again?.job.id, job.id);
      assert.equal(again?.job.attempts, 2);
      assert.equal(await restarted.complete(again!.lease, { result: { text: 'ok' }, creditsUsed: 3 }), true);
      assert.equal((await q.get(a, job.id))?.status, 'completed');
    });

    test('a job whose worker keeps dying fails for good after maxAttempts', async () => {
      const strict = await open({ maxAttempts: 2 });
      const a = acct();
      const { job } = await strict.enqueue(newJob(a, { callbackUrl: 'https://hooks.example.com/x' }));
      assert.ok(await claimOwn(strict, a, 'w', 100));
      clock.advance(101);
      const second = await claimOwn(strict, a, 'w', 100);
      assert.equal(second?.job.attempts, 2);
      clock.advance(101);
      assert.equal(await claimOwn(strict, a, 'w', 100), null);
      const failed = (await q.get(a, job.id))!;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error?.code, 'INTERNAL_ERROR');
      assert.match(failed.error?.message ?? '', /stopped 2 times/);
      assert.equal(failed.webhook.state, 'pending', 'a failed job calls its webhook too');
    });

    test('two workers on two nodes at once: every job completes exactly once', async () => {
      const nodeB = await open();
      const a = acct();
      const n = 24;
      const ids = new Set<string>();
      for (let i = 0; i < n; i++) ids.add((await q.enqueue(newJob(a))).job.id);
      const completions = new Map<string, number>();
      const claims = new Map<string, string[]>();
      const work = async (queue: JobQueue, worker: string) => {
        for (;;) {
          const c = await queue.claim(worker, 60_000);
          if (!c) return;
          (claims.get(c.job.id) ?? claims.set(c.job.id, []).get(c.job.id)!).push(worker);
          await new Promise((r) => setImmediate(r));
          if (await queue.complete(c.lease, { result: { by: worker }, creditsUsed: 1 }))
            completions.set(c.job.id, (completions.get(c.job.id) ?? 0) + 1);
        }
      };
      await Promise.all([work(q, 'a1'), work(nodeB, 'b1'), work(q, 'a2'), work(nodeB, 'b2')]);
      for (const id of ids) {
        assert.equal(completions.get(id), 1, `job ${id} completed once`);
        assert.equal(claims.get(id)?.length, 1, `job ${id} claimed once`);
        assert.equal((await q.get(a, id))?.status, 'completed');
      }
      // Both the taken-over worker and the new one try to complete at the same instant.
      const { job } = await q.enqueue(newJob(a));
      const old = await claimOwn(q, a, 'old', 100);
      clock.advance(101);
      const fresh = await claimOwn(nodeB, a, 'fresh', 60_000);
      assert.ok(old && fresh);
      const outcomes = await Promise.all([
        q.complete(old.lease, { result: 1, creditsUsed: 1 }),
        nodeB.complete(fresh.lease, { result: 2, creditsUsed: 2 }),
      ]);
      assert.deepEqual(outcomes, [false, true]);
      assert.equal((await q.get(a, job.id))?.result, 2);
    });

    test('fail: with retry and attempts left the job is queued again; without, it fails with its error', async () => {
      const a = acct();
      const { job } = await q.enqueue(newJob(a));
      const c1 = await claimOwn(q, a, 'w');
      assert.equal(await q.fail(c1!.lease, { code: 'URL_FETCH_FAILED', message: 'HTTP 503' }, { retry: true }), true);
      assert.equal((await q.get(a, job.id))?.status, 'queued');
      const c2 = await claimOwn(q, a, 'w');
      assert.equal(c2?.job.id, job.id);
      assert.equal(c2?.job.attempts, 2);
      assert.equal(await q.fail(c2!.lease, { code: 'INVALID_AUDIO', message: 'not audio', details: { field: 'url' } }), true);
      const failed = (await q.get(a, job.id))!;
      assert.equal(failed.status, 'failed');
      assert.deepEqual(failed.error, { code: 'INVALID_AUDIO', message: 'not audio', details: { field: 'url' } });
      assert.equal(failed.result, null);
      assert.equal(failed.webhook.state, 'none', 'no callback, no webhook');
      // With a retry delay the job waits before it runs again.
      const patient = await open({ retryDelayMs: 60_000 });
      const { job: later } = await patient.enqueue(newJob(a));
      const c3 = await claimOwn(patient, a, 'w');
      assert.equal(c3?.job.id, later.id);
      assert.equal(await patient.fail(c3!.lease, { code: 'URL_FETCH_FAILED', message: 'HTTP 503' }, { retry: true }), true);
      assert.equal((await patient.get(a, later.id))?.status, 'queued');
      assert.equal(await claimOwn(patient, a, 'w'), null, 'not before its retry delay');
      await patient.cancel(a, later.id);
    });

    test('cancel: queued and running jobs stop (the worker learns it), finished ones stay; another account cannot', async () => {
      const a = acct();
      const queued = (await q.enqueue(newJob(a))).job;
      clock.advance(1); // claims go oldest first; within one millisecond the order is unspecified
      const running = (await q.enqueue(newJob(a, { callbackUrl: 'https://hooks.example.com/c' }))).job;
      assert.equal(await q.cancel(acct(), queued.id), null);
      assert.equal((await q.get(a, queued.id))?.status, 'queued');
      const c = await claimOwn(q, a, 'w');
      assert.equal(c?.job.id, queued.id);
      const c2 = await claimOwn(q, a, 'w');
      assert.equal(c2?.job.id, running.id);
      assert.equal(await q.complete(c!.lease, { result: { text: 'done' }, creditsUsed: 1 }), true);
      const third = (await q.enqueue(newJob(a))).job;
      assert.equal((await q.cancel(a, third.id))?.status, 'canceled');
      assert.equal((await q.cancel(a, running.id))?.status, 'canceled');
      assert.equal(await q.heartbeat(c2!.lease, 60_000, 0.5), false, 'a canceled job loses its lease');
      assert.equal(await q.complete(c2!.lease, { result: {}, creditsUsed: 5 }), false);
      const canceled = (await q.get(a, running.id))!;
      assert.equal(canceled.status, 'canceled');
      assert.ok(canceled.finishedAt);
      assert.equal(canceled.webhook.state, 'none', 'canceling calls no webhook');
      assert.equal((await q.cancel(a, queued.id))?.status, 'completed', 'a finished job is not canceled');
      assert.equal(await claimOwn(q, a, 'w'), null, 'canceled jobs are not claimed');
    });

    /** Claims and completes every claimable job, so a test starts from an empty queue. */
    const drain = async () => {
      for (let c = await q.claim('drain', 60_000); c; c = await q.claim('drain', 60_000))
        await q.complete(c.lease, { result: null, creditsUsed: 0 });
    };

    test('beginSettle: a job being billed is no longer canceled and completes; a canceled job refuses it', async () => {
      const a = acct();
      const { job } = await q.enqueue(newJob(a));
      const c = await claimOwn(q, a, 'w');
      assert.equal(c?.job.id, job.id);
      assert.equal(await q.beginSettle(c!.lease), true);
      assert.equal((await q.cancel(a, job.id))?.status, 'running', 'the cancel came after the run began to bill');
      assert.equal(await q.heartbeat(c!.lease, 60_000), true);
      assert.equal(await q.complete(c!.lease, { result: { text: 'x' }, creditsUsed: 3 }), true);
      assert.equal((await q.get(a, job.id))?.creditsUsed, 3);
      const other = (await q.enqueue(newJob(a))).job;
      const c2 = await claimOwn(q, a, 'w');
      assert.equal(c2?.job.id, other.id);
      assert.equal((await q.cancel(a, other.id))?.status, 'canceled');
      assert.equal(await q.beginSettle(c2!.lease), false, 'a canceled job is not billed');
      assert.equal((await q.get(a, other.id))?.creditsUsed, null);
    });

    test('fair order: accounts take turns (round-robin), whoever enqueued more first', async () => {
      await drain();
      const [a, b, c] = [acct(), acct(), acct()];
      const names = new Map<string, string>();
      for (const [who, n] of [
        [a, 'a1'],
        [a, 'a2'],
        [a, 'a3'],
        [b, 'b1'],
        [a, 'a4'],
        [c, 'c1'],
        [c, 'c2'],
        [b, 'b2'],
      ] as const) {
        names.set((await q.enqueue(newJob(who))).job.id, n);
        clock.advance(1);
      }
      const order: string[] = [];
      for (let x = await q.claim('w', 60_000); x; x = await q.claim('w', 60_000)) {
        order.push(names.get(x.job.id) ?? 'other');
        await q.complete(x.lease, { result: null, creditsUsed: 0 });
      }
      assert.deepEqual(order, ['a1', 'b1', 'c1', 'a2', 'c2', 'b2', 'a3', 'a4']);
    });

    test("skipAccounts: the skipped accounts' jobs stay queued, uncounted, and are claimed later", async () => {
      await drain();
      const [a, b] = [acct(), acct()];
      const ja = (await q.enqueue(newJob(a))).job;
      clock.advance(1);
      const jb = (await q.enqueue(newJob(b))).job;
      const first = await q.claim('w', 60_000, { skipAccounts: [a] });
      assert.equal(first?.job.id, jb.id, "the other account's younger job");
      assert.equal(await q.claim('w', 60_000, { skipAccounts: [a] }), null);
      assert.equal((await q.get(a, ja.id))?.status, 'queued');
      assert.equal((await q.get(a, ja.id))?.attempts, 0);
      // (pg-boss cannot fetch around an account: the skipped job is deferred a moment.)
      let later = await q.claim('w', 60_000);
      for (let i = 0; !later && i < 40; i++) {
        await new Promise((r) => setTimeout(r, 100));
        later = await q.claim('w', 60_000);
      }
      assert.equal(later?.job.id, ja.id);
      assert.equal(later?.job.attempts, 1);
      await q.complete(first!.lease, { result: null, creditsUsed: 0 });
      await q.complete(later!.lease, { result: null, creditsUsed: 0 });
    });

    test('cancels racing claims on another node: no error, every job ends canceled or claimed once', async () => {
      await drain();
      const nodeB = await open();
      const a = acct();
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push((await q.enqueue(newJob(a))).job.id);
      const claimed = new Set<string>();
      const claiming = (async () => {
        for (let idle = 0; idle < 20; ) {
          const c = await nodeB.claim('racer', 60_000);
          if (!c) {
            idle++;
            await new Promise((r) => setTimeout(r, 5));
            continue;
          }
          claimed.add(c.job.id);
          await nodeB.complete(c.lease, { result: null, creditsUsed: 0 });
        }
      })();
      const canceled = await Promise.all(ids.map((id) => q.cancel(a, id)));
      await claiming;
      for (const [i, id] of ids.entries()) {
        const job = (await q.get(a, id))!;
        assert.ok(job.status === 'canceled' || (job.status === 'completed' && claimed.has(id)), `${id}: ${job.status}`);
        assert.ok(canceled[i]);
      }
    });

    test("list by mode: a key of one mode lists only that mode's jobs", async () => {
      const a = acct();
      const live = (await q.enqueue(newJob(a))).job;
      const test = (await q.enqueue(newJob(a, { mode: 'test' }))).job;
      assert.deepEqual(
        (await q.list(a, { mode: 'live' })).jobs.map((j) => j.id),
        [live.id],
      );
      assert.deepEqual(
        (await q.list(a, { mode: 'test' })).jobs.map((j) => j.id),
        [test.id],
      );
      assert.equal((await q.list(a)).jobs.length, 2);
      for (const j of [live, test]) await q.cancel(a, j.id);
    });

    test('release: a claimed job goes back to the queue uncounted, after its delay; the released lease ends nothing', async () => {
      const a = acct();
      const { job } = await q.enqueue(newJob(a));
      const c = await claimOwn(q, a, 'w');
      assert.equal(c?.job.id, job.id);
      assert.equal(await q.release(c!.lease, 0), true);
      const back = (await q.get(a, job.id))!;
      assert.equal(back.status, 'queued');
      assert.equal(back.attempts, 0, 'a released claim is not a run');
      assert.equal(back.startedAt, null);
      assert.equal(await q.release(c!.lease, 0), false);
      assert.equal(await q.complete(c!.lease, { result: null, creditsUsed: 1 }), false);
      assert.equal(await q.heartbeat(c!.lease, 60_000), false);
      const again = await claimOwn(q, a, 'w2');
      assert.equal(again?.job.id, job.id);
      assert.equal(again!.job.attempts, 1);
      assert.equal(await q.release(again!.lease, 3_600_000), true);
      assert.equal(await claimOwn(q, a, 'w3'), null, 'not before its delay');
      assert.equal((await q.cancel(a, job.id))?.status, 'canceled', 'a released job can be canceled like any queued one');
    });

    test('deleteResult removes a finished result only', async () => {
      const a = acct();
      const { job } = await q.enqueue(newJob(a));
      assert.equal((await q.deleteResult(a, job.id))?.resultDeleted, false, 'a queued job has nothing to delete');
      const c = await claimOwn(q, a, 'w');
      await q.complete(c!.lease, { result: { text: 'secret words' }, creditsUsed: 1 });
      assert.equal(await q.deleteResult(acct(), job.id), null);
      const after = (await q.deleteResult(a, job.id))!;
      assert.equal(after.result, null);
      assert.equal(after.resultDeleted, true);
      assert.equal(after.status, 'completed');
    });

    test('a result that is a JSON string (text, srt, vtt formats) reads back as that string, in the record and the webhook', async () => {
      const a = acct();
      const { job } = await q.enqueue(newJob(a, { callbackUrl: 'https://hooks.example.com/s' }));
      const c = await claimOwn(q, a, 'w');
      const text = 'The quick "brown" fox.\n1\n00:00:00,000 --> 00:00:01,000';
      assert.equal(await q.complete(c!.lease, { result: text, creditsUsed: 1 }), true);
      assert.equal((await q.get(a, job.id))!.result, text);
      const due = (await q.claimWebhooks(100, 10_000)).find((d) => d.job.id === job.id);
      assert.equal(due?.job.result, text);
    });

    test('retention: finished jobs older than the cut-off are purged, unfinished and recent ones stay', async () => {
      const a = acct();
      const old = (await q.enqueue(newJob(a))).job;
      const c = await claimOwn(q, a, 'w');
      await q.complete(c!.lease, { result: { text: 'old' }, creditsUsed: 1 });
      const waiting = (await q.enqueue(newJob(a))).job;
      clock.advance(8 * 86_400_000);
      const recent = (await q.enqueue(newJob(a))).job;
      await q.cancel(a, recent.id);
      const purged = await q.purgeFinished(new Date(clock.now().getTime() - 7 * 86_400_000));
      assert.ok(purged >= 1);
      assert.equal(await q.get(a, old.id), null);
      assert.equal((await q.get(a, waiting.id))?.status, 'queued');
      assert.equal((await q.get(a, recent.id))?.status, 'canceled');
      await q.cancel(a, waiting.id);
    });

    test('depth counts queued and running jobs and pending webhooks', async () => {
      const d0 = await q.depth();
      const a = acct();
      await q.enqueue(newJob(a));
      await q.enqueue(newJob(a));
      const d1 = await q.depth();
      assert.equal(d1.queued, d0.queued + 2);
      const c = await claimOwn(q, a, 'w');
      const d2 = await q.depth();
      assert.equal(d2.queued, d0.queued + 1);
      assert.equal(d2.running, d0.running + 1);
      await q.complete(c!.lease, { result: null, creditsUsed: 0 });
      const rest = await claimOwn(q, a, 'w');
      await q.complete(rest!.lease, { result: null, creditsUsed: 0 });
      const d3 = await q.depth();
      assert.equal(d3.queued, d0.queued);
      assert.equal(d3.running, d0.running);
    });

    test('webhook deliveries: due ones are leased to one dispatcher, every attempt is recorded, retries are scheduled', async () => {
      const nodeB = await open();
      const a = acct();
      const { job } = await q.enqueue(newJob(a, { callbackUrl: 'https://hooks.example.com/w', zeroRetention: true }));
      const c = await claimOwn(q, a, 'w');
      await q.complete(c!.lease, { result: { text: 'only in the webhook' }, creditsUsed: 4 });
      assert.equal((await q.get(a, job.id))?.result, null, 'zero retention shows no result');
      const mine = (ds: Awaited<ReturnType<JobQueue['claimWebhooks']>>) => ds.filter((d) => d.job.id === job.id);
      const [d1] = mine(await q.claimWebhooks(100, 10_000));
      assert.ok(d1);
      assert.equal(d1.attempt, 1);
      assert.equal(d1.job.status, 'completed');
      assert.deepEqual(d1.job.result, { text: 'only in the webhook' }, 'the delivery carries the held result');
      assert.deepEqual(mine(await nodeB.claimWebhooks(100, 10_000)), [], 'a leased delivery is not handed out twice');
      const at = clock.now();
      await q.recordWebhookAttempt(
        d1,
        { attempt: 1, at, status: 500, ok: false, error: 'HTTP 500', durationMs: 12 },
        new Date(at.getTime() + 30_000),
      );
      assert.deepEqual(mine(await nodeB.claimWebhooks(100, 10_000)), [], 'not due before its next time');
      clock.advance(30_001);
      const [d2] = mine(await nodeB.claimWebhooks(100, 10_000));
      assert.equal(d2?.attempt, 2);
      assert.equal(d2?.webhookId, d1.webhookId, 'the webhook id is stable across retries');
      // The first dispatcher, late, cannot record over the second.
      await q.recordWebhookAttempt(d1, { attempt: 2, at: clock.now(), status: 200, ok: true, error: null, durationMs: 5 }, null);
      assert.equal((await q.get(a, job.id))?.webhook.state, 'pending');
      await nodeB.recordWebhookAttempt(d2!, { attempt: 2, at: clock.now(), status: 204, ok: true, error: null, durationMs: 7 }, null);
      const done = (await q.get(a, job.id))!;
      assert.equal(done.webhook.state, 'delivered');
      assert.deepEqual(
        done.webhook.attempts.map((x) => [x.attempt, x.status, x.ok, x.error]),
        [
          [1, 500, false, 'HTTP 500'],
          [2, 204, true, null],
        ],
      );
      assert.equal(done.webhook.attempts[0]?.durationMs, 12);
      clock.advance(60_000);
      assert.deepEqual(mine(await q.claimWebhooks(100, 10_000)), [], 'a delivered webhook is done');
      // A dispatcher that dies mid-POST: its lease runs out and the delivery is due again.
      const j2 = (await q.enqueue(newJob(a, { callbackUrl: 'https://hooks.example.com/w2' }))).job;
      const c2 = await claimOwn(q, a, 'w');
      await q.fail(c2!.lease, { code: 'INVALID_AUDIO', message: 'bad' });
      const lost = (await q.claimWebhooks(100, 5_000)).filter((d) => d.job.id === j2.id);
      assert.equal(lost.length, 1);
      assert.equal(lost[0]?.job.status, 'failed');
      clock.advance(5_001);
      const retaken = (await nodeB.claimWebhooks(100, 5_000)).filter((d) => d.job.id === j2.id);
      assert.equal(retaken[0]?.attempt, 1);
      await nodeB.recordWebhookAttempt(
        retaken[0]!,
        { attempt: 1, at: clock.now(), status: null, ok: false, error: 'timeout', durationMs: 10_000 },
        null,
      );
      assert.equal((await q.get(a, j2.id))?.webhook.state, 'failed', 'given up');
      // A dispatcher whose destination is busy hands a delivery back: no attempt, due again later.
      const j3 = (await q.enqueue(newJob(a, { callbackUrl: 'https://hooks.example.com/w3' }))).job;
      const c3 = await claimOwn(q, a, 'w');
      await q.complete(c3!.lease, { result: null, creditsUsed: 0 });
      const [d3] = (await q.claimWebhooks(100, 10_000)).filter((d) => d.job.id === j3.id);
      assert.ok(d3);
      await q.deferWebhook(d3, new Date(clock.now().getTime() + 2_000));
      assert.deepEqual(
        (await q.claimWebhooks(100, 10_000)).filter((d) => d.job.id === j3.id),
        [],
        'not due before its new time',
      );
      clock.advance(2_001);
      const [again] = (await nodeB.claimWebhooks(100, 10_000)).filter((d) => d.job.id === j3.id);
      assert.equal(again?.attempt, 1, 'a deferred delivery counts no attempt');
      assert.deepEqual((await q.get(a, j3.id))?.webhook.attempts, []);
    });
  });
}
