// Canceling a queued or running job, for every edge that offers it (DELETE /api/v1/stt/jobs/{id}
// and the dashboard): the queue marks it canceled, unless its run has begun to bill it (then it
// completes: decision #35). A running job's runner stops at once when it runs on this node (the
// 'canceled' event, src/background-jobs.ts), else at its next heartbeat or before it settles,
// whichever comes first; it gives the held credits back and deletes the audio. A queued upload,
// which has no runner to delete it, is deleted here at once.

import { rm } from 'node:fs/promises';
import type { EventEmitter } from 'node:events';
import type { JobQueue, JobRecord } from './queue.js';

/** The job after the cancel (as it was, if the queue no longer finds it). */
export async function cancelJob(queue: JobQueue, accountId: string, job: JobRecord, events?: EventEmitter): Promise<JobRecord> {
  const after = (await queue.cancel(accountId, job.id)) ?? job;
  if (after.status === 'canceled' && job.status !== 'canceled') events?.emit('canceled', job.id);
  if (job.status === 'queued' && after.status === 'canceled' && job.source.type === 'upload') await rm(job.source.path, { force: true });
  return after;
}
