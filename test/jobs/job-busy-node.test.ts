// A job that meets a full node (decision #99): every recognizer busy past the decoder wait, so its
// run is refused with SERVICE_OVERLOADED. The job is not at fault: it goes back to the queue
// uncounted, its hold released, and runs once a recognizer is free: completed with one run,
// billed once. (Before, each busy spell used up one of the job's 3 runs.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, librivox, soxConcat } from '../helpers/speech.js';
import { startJobWork, type JobWork } from '../../src/background-jobs.js';

let t: TestApp;
let work: JobWork;
let key: string;
let accountId: string;

before(async () => {
  t = await createTestApp({
    // One decoder per profile, and a wait for it shorter than the recording that holds it.
    PARLA_STT_DECODERS: '1',
    PARLA_STT_DECODER_WAIT_SECONDS: '1',
    PARLA_STT_PARALLEL: 'false',
    PARLA_JOB_CONCURRENCY: '1',
  });
  work = startJobWork(t.services, { webhookScheduleMs: [300, 300], pollMs: 200 });
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 100_000, plan: 'enterprise' }));
});
after(async () => {
  await work?.stop();
  await t?.close();
});

test('a job that finds every recognizer busy waits queued, uncounted, then runs once: one run, billed once', {
  timeout: 180_000,
}, async () => {
  const before = await t.services.store.getBalance(accountId, 'live');
  // ~23 s of speech on the node's one fast decoder: several seconds of recognition.
  const busy = await multipart(readFileSync(soxConcat(Array(3).fill(librivox()[0]!.file))), { model: 'cipher-fast' }, 'busy.wav');
  const holding = t.app.inject({
    method: 'POST',
    url: '/api/v1/stt/transcribe',
    headers: { 'x-api-key': key, 'content-type': busy.contentType },
    payload: busy.body,
  });
  const started = Date.now();
  // The batch request has the decoder once its audio is decoded; the job comes a moment after.
  await new Promise((r) => setTimeout(r, 1500));
  const upload = await multipart(readFileSync(flite('The quick brown fox jumps over the lazy dog.')), { model: 'cipher-fast' }, 'fox.wav');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/stt/jobs',
    headers: { 'x-api-key': key, 'content-type': upload.contentType },
    payload: upload.body,
  });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().job.id as string;
  const batch = await holding;
  assert.equal(batch.statusCode, 200, batch.body);
  const batchMs = Date.now() - started;
  let job: any;
  for (let i = 0; i < 300; i++) {
    job = (await t.app.inject({ method: 'GET', url: `/api/v1/stt/jobs/${id}`, headers: { 'x-api-key': key } })).json().job;
    if (['completed', 'failed', 'canceled'].includes(job.status)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.attempts, 1, `one run counted: ${JSON.stringify(job)}`);
  assert.match(job.result.text, /fox/i);
  // The job waited for the decoder: it finished after the recording that held it.
  assert.ok(new Date(job.finished_at).getTime() - started >= batchMs - 50, `job finished ${job.finished_at}, batch took ${batchMs} ms`);
  const after = await t.services.store.getBalance(accountId, 'live');
  assert.equal(before - after, batch.json().credits_used + job.credits_used, 'billed once each');
});
