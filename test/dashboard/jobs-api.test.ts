// GET /dashboard/api/jobs, GET and DELETE /dashboard/api/jobs/:id: the signed-in account's jobs (both
// modes, never another account's), newest first in pages, by status; cancel with the CSRF token.
// On both queues (SQLite, PostgreSQL with pg-boss). The node runs no jobs (PARLA_JOB_CONCURRENCY=0,
// an API-only node), so the jobs made through the public API stay queued until canceled.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { freshPgSchema } from '../helpers/env.js';
import { multipart } from '../helpers/multipart.js';
import { flite } from '../helpers/speech.js';
import { startJobWork, type JobWork } from '../../src/background-jobs.js';
import { accountWithPassword, expectError, signedIn } from './helpers.js';

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(kind, () => {
    let t: TestApp;
    let work: JobWork;
    let dropSchema: () => Promise<void> = async () => undefined;
    before(async () => {
      let env: Record<string, string> = {};
      if (kind === 'postgres') {
        const pg = await freshPgSchema();
        env = { DATABASE_URL: pg.url };
        dropSchema = () => pg.drop();
      }
      t = await createTestApp({ PARLA_JOB_CONCURRENCY: '0', ...env });
      assert.equal(t.services.jobs.queue.kind, kind);
      work = startJobWork(t.services);
    });
    after(async () => {
      await work.stop();
      await t.close();
      await dropSchema();
    });

    async function createJob(
      apiKey: string,
      url = 'https://media.example.com/talk.mp3',
      fields: Record<string, unknown> = {},
    ): Promise<string> {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: { url, ...fields },
      });
      assert.equal(res.statusCode, 202, res.body);
      // Jobs of one millisecond are ordered by id: a pause keeps the creation order the list order.
      await new Promise((r) => setTimeout(r, 3));
      return res.json().job.id as string;
    }

    test("the list: newest first, both modes, a page at a time, by status; no results, no server paths; never another account's", async () => {
      const acc = await accountWithPassword(t);
      const other = await createTestAccount(t.services);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(await createJob(acc.apiKey, `https://media.example.com/${i}.mp3`, { model: 'cipher-max' }));
      ids.push(await createJob(acc.testKey));
      const theirs = await createJob(other.apiKey);
      const b = await signedIn(t, acc.email);

      const res = await b.request({ method: 'GET', url: '/dashboard/api/jobs', csrf: false });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const body = res.json();
      assert.deepEqual(
        body.jobs.map((j: any) => j.id),
        [...ids].reverse(),
      );
      assert.equal(body.next_cursor, null);
      assert.ok(!body.jobs.some((j: any) => j.id === theirs));
      assert.deepEqual(
        body.jobs.map((j: any) => j.mode),
        ['test', 'live', 'live', 'live', 'live'],
      );
      const oldest = body.jobs[4];
      assert.deepEqual(
        Object.keys(oldest).sort(),
        [
          'attempts',
          'audio_seconds',
          'callback_url',
          'created_at',
          'credits_used',
          'error',
          'finished_at',
          'id',
          'language',
          'mode',
          'model',
          'progress',
          'response_format',
          'result_deleted',
          'source',
          'started_at',
          'status',
          'webhook_state',
        ].sort(),
      );
      assert.equal(oldest.status, 'queued');
      assert.equal(oldest.model, 'cipher-max');
      assert.equal(oldest.audio_seconds, null, 'not known before the audio is decoded');
      assert.deepEqual(oldest.source, { type: 'url', url: 'https://media.example.com/0.mp3' });

      const first = (await b.request({ method: 'GET', url: '/dashboard/api/jobs?limit=2', csrf: false })).json();
      assert.deepEqual(
        first.jobs.map((j: any) => j.id),
        [ids[4], ids[3]],
      );
      assert.equal(typeof first.next_cursor, 'string');
      const second = (
        await b.request({ method: 'GET', url: `/dashboard/api/jobs?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`, csrf: false })
      ).json();
      assert.deepEqual(
        second.jobs.map((j: any) => j.id),
        [ids[2], ids[1]],
      );
      const third = (
        await b.request({ method: 'GET', url: `/dashboard/api/jobs?limit=2&cursor=${encodeURIComponent(second.next_cursor)}`, csrf: false })
      ).json();
      assert.deepEqual(
        third.jobs.map((j: any) => j.id),
        [ids[0]],
      );
      assert.equal(third.next_cursor, null);

      // An upload shows its name and size, never where the server keeps it.
      const { body: form, contentType } = await multipart(readFileSync(flite('An uploaded job.')), {}, 'meeting.wav');
      const up = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': acc.apiKey, 'content-type': contentType },
        payload: form,
      });
      assert.equal(up.statusCode, 202, up.body);
      const listed = (await b.request({ method: 'GET', url: '/dashboard/api/jobs?limit=1', csrf: false })).json().jobs[0];
      assert.deepEqual(listed.source, { type: 'upload', filename: 'meeting.wav', bytes: readFileSync(flite('An uploaded job.')).length });
      assert.ok(!JSON.stringify(listed).includes(t.services.config.dataDir), 'no server path');

      expectError(await b.request({ method: 'GET', url: '/dashboard/api/jobs?status=done', csrf: false }), 400, 'INVALID_PARAMETER');
      expectError(await b.request({ method: 'GET', url: '/dashboard/api/jobs?limit=0', csrf: false }), 400, 'INVALID_PARAMETER');
      expectError(await b.request({ method: 'GET', url: '/dashboard/api/jobs?limit=101', csrf: false }), 400, 'INVALID_PARAMETER');
      expectError(
        await b.request({ method: 'GET', url: '/dashboard/api/jobs?cursor=bm90LWEtY3Vyc29y', csrf: false }),
        400,
        'INVALID_PARAMETER',
      );
      expectError(await t.app.inject({ method: 'GET', url: '/dashboard/api/jobs' }), 401, 'SESSION_REQUIRED');
      // An API key is not a session: the dashboard's API takes only the cookie.
      expectError(
        await t.app.inject({ method: 'GET', url: '/dashboard/api/jobs', headers: { 'x-api-key': acc.apiKey } }),
        401,
        'SESSION_REQUIRED',
      );
    });

    test("cancel: needs the CSRF token; cancels a queued job (its upload is deleted); another account's job is 404; a finished one is answered as it is", async () => {
      const acc = await accountWithPassword(t);
      const other = await createTestAccount(t.services);
      const { body: form, contentType } = await multipart(readFileSync(flite('Cancel me.')), {}, 'cancel.wav');
      const up = await t.app.inject({
        method: 'POST',
        url: '/api/v1/stt/jobs',
        headers: { 'x-api-key': acc.apiKey, 'content-type': contentType },
        payload: form,
      });
      const id = up.json().job.id as string;
      const record = await t.services.jobs.queue.get(acc.accountId, id);
      assert.ok(record && record.source.type === 'upload');
      const stored = record.source.path;
      assert.ok(existsSync(stored));
      const theirs = await createJob(other.apiKey);
      const b = await signedIn(t, acc.email);

      expectError(await b.request({ method: 'DELETE', url: `/dashboard/api/jobs/${id}`, csrf: false }), 403, 'CSRF_FAILED');
      expectError(await b.request({ method: 'DELETE', url: `/dashboard/api/jobs/${theirs}` }), 404, 'NOT_FOUND');
      expectError(await b.request({ method: 'DELETE', url: '/dashboard/api/jobs/job_AAAAAAAAAAAAAAAAAAAA' }), 404, 'NOT_FOUND');
      expectError(await b.request({ method: 'DELETE', url: '/dashboard/api/jobs/..%2F..%2Fetc' }), 404, 'NOT_FOUND');
      assert.equal((await t.services.jobs.queue.get(other.accountId, theirs))?.status, 'queued', "the other account's job is untouched");

      const res = await b.request({ method: 'DELETE', url: `/dashboard/api/jobs/${id}` });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().job.status, 'canceled');
      assert.equal(res.json().job.id, id);
      assert.equal(existsSync(stored), false, 'the queued upload is deleted');
      // Again: the job has ended; the answer is the job as it is.
      const again = await b.request({ method: 'DELETE', url: `/dashboard/api/jobs/${id}` });
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().job.status, 'canceled');
      const listed = (await b.request({ method: 'GET', url: '/dashboard/api/jobs?status=canceled', csrf: false })).json();
      assert.deepEqual(
        listed.jobs.map((j: any) => j.id),
        [id],
      );
      assert.equal((await b.request({ method: 'GET', url: '/dashboard/api/jobs?status=queued', csrf: false })).json().jobs.length, 0);
    });
    test("one job: the listed fields plus zero_retention, result and webhook; another account's job, a malformed id or no session get no job", async () => {
      const acc = await accountWithPassword(t);
      const other = await createTestAccount(t.services);
      const id = await createJob(acc.apiKey, 'https://media.example.com/one.mp3', {
        callback_url: 'https://hooks.example.com/parla',
        zero_retention: true,
      });
      const plain = await createJob(acc.testKey);
      const theirs = await createJob(other.apiKey);
      const b = await signedIn(t, acc.email);

      const res = await b.request({ method: 'GET', url: `/dashboard/api/jobs/${id}`, csrf: false });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const job = res.json().job;
      const listed = (await b.request({ method: 'GET', url: '/dashboard/api/jobs', csrf: false }))
        .json()
        .jobs.find((j: any) => j.id === id);
      const { zero_retention, result, webhook, ...rest } = job;
      assert.deepEqual(rest, listed, 'the listed fields, the same');
      assert.equal(zero_retention, true);
      assert.equal(result, null, 'a queued job has no result');
      assert.deepEqual(webhook, { state: 'none', attempts: [] }, 'no delivery is due before the job ends');
      const test = (await b.request({ method: 'GET', url: `/dashboard/api/jobs/${plain}`, csrf: false })).json().job;
      assert.equal(test.mode, 'test');
      assert.equal(test.webhook, null, 'no callback_url, no webhook');
      assert.equal(test.zero_retention, false);

      expectError(await b.request({ method: 'GET', url: `/dashboard/api/jobs/${theirs}`, csrf: false }), 404, 'NOT_FOUND');
      expectError(await b.request({ method: 'GET', url: '/dashboard/api/jobs/job_AAAAAAAAAAAAAAAAAAAA', csrf: false }), 404, 'NOT_FOUND');
      expectError(await b.request({ method: 'GET', url: '/dashboard/api/jobs/..%2F..%2Fetc', csrf: false }), 404, 'NOT_FOUND');
      // Longer than a path parameter may be (Fastify's maxParamLength): no route, the same 404.
      expectError(await b.request({ method: 'GET', url: `/dashboard/api/jobs/${'x'.repeat(101)}`, csrf: false }), 404, 'NOT_FOUND');
      expectError(await t.app.inject({ method: 'GET', url: `/dashboard/api/jobs/${id}` }), 401, 'SESSION_REQUIRED');
      expectError(
        await t.app.inject({ method: 'GET', url: `/dashboard/api/jobs/${id}`, headers: { 'x-api-key': acc.apiKey } }),
        401,
        'SESSION_REQUIRED',
      );
    });
  });
}
