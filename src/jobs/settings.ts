// Where a node keeps the files of its jobs, and which URLs a job may fetch: read by the job routes
// (a stored upload) and the runner (a download), from the configuration.

import path from 'node:path';
import type { Config } from '../config.js';
import type { FetchPolicy } from '../net/safe-fetch.js';

/** Where uploads and downloads of jobs are kept while their jobs run. */
export function jobsDir(dataDir: string): string {
  return path.join(dataDir, 'jobs');
}

export function fetchPolicy(config: Config): FetchPolicy {
  return { allowPrivate: config.jobs.fetchAllowPrivate, allowHosts: config.jobs.fetchAllowHosts };
}
