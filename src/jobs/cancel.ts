// Canceling a queued or running job, for every edge that offers it (DELETE /api/v1/stt/jobs/{id}
// and the dashboard): the queue marks it canceled (a running job's runner notices at its next
// heartbeat, gives the held credits back and deletes its audio), and a queued upload, which has no
// runner to delete it, is deleted here at once.

import { rm } from 'node:fs/promises';
import type { JobQueue, JobRecord } from './queue.js';

/** The job after the cancel (as it was, if the queue no longer finds it). */
export async function cancelJob(queue: JobQueue, accountId: string, job: JobRecord): Promise<JobRecord> {
  const after = (await queue.cancel(accountId, job.id)) ?? job;
  if (job.status === 'queued' && after.status === 'canceled' && job.source.type === 'upload') await rm(job.source.path, { force: true });
  return after;
}
