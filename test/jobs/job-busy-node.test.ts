// A job that meets a full node (decision #99): every recognizer busy past the decoder wait, so its
// run is refused with SERVICE_OVERLOADED. The job is not at fault: it goes back to the queue
// uncounted, its hold released, and runs once a recognizer is free: completed with one run,
// billed once. (Before, each busy spell used up one of the job's 3 runs, 10 s apart.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite } from '../helpers/speech.js';
import { startJobWork, type JobWork } from '../../src/background-jobs.js';

let t: TestApp;
let work: JobWork;
let key: string;
let accountId: string;

before(async () => {
  t = await createTestApp({
    // One decoder per profile, made at start, and a short wait for it.
    PARLA_STT_DECODERS: '1',
    PARLA_STT_PRELOAD: 'true',
    PARLA_STT_DECODER_WAIT_SECONDS: '1',
    PARLA_JOB_CONCURRENCY: '1',
  });
  await t.services.registry.whenReady();
  work = startJobWork(t.services, { webhookScheduleMs: [300, 300], pollMs: 200 });
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 100_000, plan: 'enterprise' }));
});
after(async () => {
  await work?.stop();
  await t?.close();
});

const getJob = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/stt/jobs/${id}`, headers: { 'x-api-key': key } })).json().job;

test('a job that finds every recognizer busy waits queued, uncounted, then runs once: one run, billed once', {
  timeout: 120_000,
}, async () => {
  const before = await t.services.store.getBalance(accountId, 'live');
  // The node's one fast decoder, held as a live stream holds it, until released below.
  const engine = t.services.registry.sttBinding('cipher-fast' as never)!.engine;
  const held = await engine.openStream({ language: 'en', profile: 'fast' });
  const upload = await multipart(readFileSync(flite('The quick brown fox jumps over the lazy dog.')), { model: 'cipher-fast' }, 'fox.wav');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/stt/jobs',
    headers: { 'x-api-key': key, 'content-type': upload.contentType },
    payload: upload.body,
  });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().job.id as string;
  // Long enough for the job to be claimed, wait its 1 s for the decoder and be refused, more than once.
  const busyUntil = Date.now() + 5000;
  let seenRunning = false;
  while (Date.now() < busyUntil) {
    const job = await getJob(id);
    seenRunning ||= job.status === 'running';
    assert.ok(['queued', 'running'].includes(job.status), JSON.stringify(job));
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(seenRunning, 'the job was claimed while the decoder was held');
  await held.close();
  let job: any;
  for (let i = 0; i < 300; i++) {
    job = await getJob(id);
    if (['completed', 'failed', 'canceled'].includes(job.status)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.attempts, 1, `one run counted: ${JSON.stringify(job)}`);
  assert.match(job.result.text, /fox/i);
  assert.equal(before - (await t.services.store.getBalance(accountId, 'live')), job.credits_used, 'billed once');
});
