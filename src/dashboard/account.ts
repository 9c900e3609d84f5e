// What the dashboard's API (routes.ts) does for the signed-in owner, behind the HTTP: the sign-in,
// the session a request carries, the owner's own keys (a reserved name, a limit of active keys per
// mode) and jobs (both modes, cancel without deleting a result). The routes read the request, call
// these and render the views. Contract and security model: docs/dashboard.md.

import type { FastifyRequest } from 'fastify';
import { createApiKey } from '../accounts/admin.js';
import { effectiveKeyState, MAX_ACTIVE_KEYS_PER_MODE } from '../accounts/api-keys.js';
import type { Account, ApiKeyRecord, KeyMode } from '../domain/accounts.js';
import { ApiError } from '../errors.js';
import { sessionCookie } from '../http/session-cookie.js';
import { cancelJob } from '../jobs/cancel.js';
import { decodeCursor, FINISHED, type JobRecord, type JobStatus, type Page } from '../jobs/queue.js';
import type { Services } from '../services.js';
import type { DashboardSession } from '../storage/store.js';
import { checkCsrf } from './csrf.js';
import { verifyAgainstNothing, verifyPassword } from './password.js';
import { PLAYGROUND_KEY_NAME, PlaygroundAuth } from './playground-auth.js';
import { SessionManager } from './sessions.js';
import { SignInLimiter } from './sign-in-limit.js';

/** The dashboard's long-lived parts: built once per app, shared by its routes and the API auth hook. */
export interface Dashboard {
  sessions: SessionManager;
  signIn: SignInLimiter;
  playground: PlaygroundAuth;
}

export function createDashboard(services: Services): Dashboard {
  const sessions = new SessionManager(services.store);
  return {
    sessions,
    signIn: new SignInLimiter(services.limiter),
    playground: new PlaygroundAuth(services.store, services.config, sessions),
  };
}

/** The session and account of a request's cookie, or 401 SESSION_REQUIRED; `csrf`: the request must echo the session's token. */
export async function signedIn(
  services: Services,
  dashboard: Dashboard,
  request: FastifyRequest,
  opts: { csrf: boolean },
): Promise<{ session: DashboardSession; account: Account }> {
  const session = await dashboard.sessions.resolve(sessionCookie(request));
  if (!session) throw new ApiError('SESSION_REQUIRED');
  if (opts.csrf) checkCsrf(request, session);
  const account = await services.store.getAccount(session.accountId);
  if (!account) throw new ApiError('SESSION_REQUIRED');
  return { session, account };
}

/** Checks the password (rate-limited per email and address) and opens a session in place of the request's previous one. */
export async function signIn(
  services: Services,
  dashboard: Dashboard,
  request: FastifyRequest,
  email: string,
  password: string,
): Promise<{ token: string; session: DashboardSession; account: Account }> {
  const { sessions } = dashboard;
  await dashboard.signIn.attempt(email, request.ip);
  const found = await services.store.findAccountByEmail(email);
  // Unknown email, no password set, wrong password: one answer, one scrypt's worth of time.
  const ok = found?.passwordHash ? await verifyPassword(password, found.passwordHash) : await verifyAgainstNothing(password);
  if (!found || !ok) throw new ApiError('SIGN_IN_FAILED');
  const previous = await sessions.resolve(sessionCookie(request));
  if (previous) await sessions.destroy(previous);
  const { token, session } = await sessions.create(found.id);
  return { token, session, account: found };
}

/** A new key of the owner's; the playground's name is reserved, and at most MAX_ACTIVE_KEYS_PER_MODE are active per mode. */
export async function createOwnKey(
  services: Services,
  account: Account,
  rawName: string,
  mode: KeyMode,
): Promise<{ key: ApiKeyRecord; rawKey: string }> {
  const name = rawName.trim();
  // The playground finds its key by this name; a key the owner holds must not be mistaken for it.
  if (name.toLowerCase() === PLAYGROUND_KEY_NAME.toLowerCase()) {
    throw new ApiError('INVALID_PARAMETER', {
      message: `The name "${PLAYGROUND_KEY_NAME}" is reserved for the playground's own key.`,
      details: { field: 'name', provided: name },
    });
  }
  const now = new Date();
  const active = (await services.store.listKeys(account.id)).filter(
    (k) => k.mode === mode && k.name !== PLAYGROUND_KEY_NAME && effectiveKeyState(k, now) === 'active',
  ).length;
  if (active >= MAX_ACTIVE_KEYS_PER_MODE) {
    throw new ApiError('KEY_LIMIT_REACHED', {
      message: `The account already has ${active} active ${mode} keys; at most ${MAX_ACTIVE_KEYS_PER_MODE} are allowed per mode.`,
      details: { limit: MAX_ACTIVE_KEYS_PER_MODE, mode },
    });
  }
  return createApiKey(services.store, services.config, { accountId: account.id, name, mode });
}

/** Revokes one of the owner's keys (again: no change); another account's key is answered as an unknown one. */
export async function revokeOwnKey(services: Services, account: Account, id: string): Promise<ApiKeyRecord> {
  const { store } = services;
  const key = await store.getKey(id);
  if (!key || key.accountId !== account.id) throw new ApiError('KEY_NOT_FOUND', { details: { provided: id } });
  await store.setKeyState(key.id, 'revoked');
  // This node refuses the key from the next request on; other nodes within their cache time.
  services.authenticator.invalidateKey(key.id);
  const listed = (await store.listKeys(account.id)).find((k) => k.id === key.id);
  return listed ?? { ...key, state: 'revoked' };
}

/** The account's jobs, both modes, newest first, a page at a time (the queue's own cursor). */
export function listOwnJobs(
  services: Services,
  account: Account,
  q: { limit?: number; cursor?: string; status?: JobStatus },
): Promise<Page> {
  // The queue reads a cursor it cannot decode as "from the start": say so instead.
  if (q.cursor !== undefined && decodeCursor(q.cursor) === null) {
    throw new ApiError('INVALID_PARAMETER', { message: 'cursor is not a cursor this list gave out.', details: { field: 'cursor' } });
  }
  return services.jobs.queue.list(account.id, {
    limit: q.limit ?? 20,
    cursor: q.cursor ?? null,
    ...(q.status ? { status: q.status } : {}),
  });
}

/** One job of the account (either mode); another account's job, or an id of the wrong form, is answered as one that does not exist. */
export async function getOwnJob(services: Services, account: Account, id: string): Promise<JobRecord> {
  const job = /^job_[A-Za-z0-9]{20}$/.test(id) ? await services.jobs.queue.get(account.id, id) : null;
  if (!job) throw new ApiError('NOT_FOUND', { message: 'No such job in this account.', details: { provided: id } });
  return job;
}

/**
 * Cancels a queued or running job (its runner stops, at once on this node, and gives the held
 * credits back). A finished job is answered as it is: the dashboard deletes no results. As
 * DELETE /api/v1/stt/jobs/{id} does, a queued upload's file goes at once (no runner will).
 */
export async function cancelOwnJob(services: Services, account: Account, id: string): Promise<JobRecord> {
  const { queue, events } = services.jobs;
  const job = await getOwnJob(services, account, id);
  if (FINISHED.has(job.status)) return job;
  return cancelJob(queue, account.id, job, events);
}
