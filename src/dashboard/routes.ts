// The dashboard's JSON API under /dashboard/api: sign-in/out, the account's API keys, its usage
// and its transcription jobs. These routes are public to the API-key check (src/http/auth.ts) and
// authenticated by the session cookie instead; every state-changing one also needs the session's
// X-CSRF-Token.
// Contract and security model: docs/dashboard.md.

import { cancelJob } from '../jobs/cancel.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import type { Account } from '../domain/accounts.js';
import type { DashboardSession } from '../storage/store.js';
import { createApiKey } from '../accounts/admin.js';
import { effectiveKeyState, MAX_ACTIVE_KEYS_PER_MODE } from '../accounts/api-keys.js';
import { ApiError } from '../errors.js';
import { checkCsrf, checkOrigin } from './csrf.js';
import { prepareDummyHash, verifyAgainstNothing, verifyPassword } from './password.js';
import { PLAYGROUND_KEY_NAME, PlaygroundAuth } from './playground-auth.js';
import { SESSION_COOKIE, SessionManager, sessionCookie } from './sessions.js';
import { SignInLimiter } from './sign-in-limit.js';
import { dashboardUsage } from './usage.js';
import { accountView, jobView, keyView } from './views.js';
import { decodeCursor, FINISHED } from '../jobs/queue.js';
import { CreatedKey, DashboardUsage, JobList, JobParams, JobsQuery, KeyList, KeyParams, NewKeyBody, OneJob, OneKey, SessionView, SignInBody, UsageQuery } from './schemas.js';

/** The dashboard's long-lived parts: built once per app, shared by its routes and the API auth hook. */
export interface Dashboard {
  sessions: SessionManager;
  signIn: SignInLimiter;
  playground: PlaygroundAuth;
}

export function createDashboard(services: Services): Dashboard {
  const sessions = new SessionManager(services.store);
  return { sessions, signIn: new SignInLimiter(services.limiter), playground: new PlaygroundAuth(services.store, services.config, sessions) };
}

export const dashboardApiRoutes: FastifyPluginAsyncTypebox<{ services: Services; dashboard: Dashboard }> = async (app, { services, dashboard }) => {
  const { store } = services;
  const { sessions } = dashboard;
  prepareDummyHash();

  // Answers carry session tokens and once-shown keys: no cache may keep them.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Cache-Control', 'no-store');
    return payload;
  });

  async function signedIn(request: FastifyRequest, opts: { csrf: boolean }): Promise<{ session: DashboardSession; account: Account }> {
    const session = await sessions.resolve(sessionCookie(request));
    if (!session) throw new ApiError('SESSION_REQUIRED');
    if (opts.csrf) checkCsrf(request, session);
    const account = await store.getAccount(session.accountId);
    if (!account) throw new ApiError('SESSION_REQUIRED');
    return { session, account };
  }

  function clearCookie(request: FastifyRequest, reply: FastifyReply): void {
    const { maxAge: _maxAge, ...options } = sessions.cookieOptions(request);
    reply.clearCookie(SESSION_COOKIE, options);
  }

  app.post('/session', { schema: { hide: true, body: SignInBody, response: { 200: SessionView } } }, async (request, reply) => {
    // No session yet, so no CSRF token: the origin check (and SameSite) guard this one.
    checkOrigin(request);
    const email = request.body.email.toLowerCase();
    await dashboard.signIn.attempt(email, request.ip);
    const found = await store.findAccountByEmail(email);
    // Unknown email, no password set, wrong password: one answer, one scrypt's worth of time.
    const ok = found?.passwordHash ? await verifyPassword(request.body.password, found.passwordHash) : await verifyAgainstNothing(request.body.password);
    if (!found || !ok) throw new ApiError('SIGN_IN_FAILED');
    const previous = await sessions.resolve(sessionCookie(request));
    if (previous) await sessions.destroy(previous);
    const { token, session } = await sessions.create(found.id);
    reply.setCookie(SESSION_COOKIE, token, sessions.cookieOptions(request));
    return { account: accountView(found), csrf_token: session.csrfToken };
  });

  app.get('/session', { schema: { hide: true, response: { 200: SessionView } } }, async (request) => {
    const { session, account } = await signedIn(request, { csrf: false });
    return { account: accountView(account), csrf_token: session.csrfToken };
  });

  app.delete('/session', { schema: { hide: true } }, async (request, reply) => {
    const session = await sessions.resolve(sessionCookie(request));
    // Without a live session there is nothing to protect: just drop the stale cookie.
    if (session) {
      checkCsrf(request, session);
      await sessions.destroy(session);
    }
    clearCookie(request, reply);
    return reply.code(204).send();
  });

  app.get('/keys', { schema: { hide: true, response: { 200: KeyList } } }, async (request) => {
    const { account } = await signedIn(request, { csrf: false });
    const now = new Date();
    return { keys: (await store.listKeys(account.id)).map((k) => keyView(k, now)) };
  });

  app.post('/keys', { schema: { hide: true, body: NewKeyBody, response: { 201: CreatedKey } } }, async (request, reply) => {
    const { account } = await signedIn(request, { csrf: true });
    const name = request.body.name.trim();
    // The playground finds its key by this name; a key the owner holds must not be mistaken for it.
    if (name.toLowerCase() === PLAYGROUND_KEY_NAME.toLowerCase()) {
      throw new ApiError('INVALID_PARAMETER', { message: `The name "${PLAYGROUND_KEY_NAME}" is reserved for the playground's own key.`, details: { field: 'name', provided: name } });
    }
    const mode = request.body.mode;
    const now = new Date();
    const active = (await store.listKeys(account.id)).filter((k) => k.mode === mode && k.name !== PLAYGROUND_KEY_NAME && effectiveKeyState(k, now) === 'active').length;
    if (active >= MAX_ACTIVE_KEYS_PER_MODE) {
      throw new ApiError('KEY_LIMIT_REACHED', {
        message: `The account already has ${active} active ${mode} keys; at most ${MAX_ACTIVE_KEYS_PER_MODE} are allowed per mode.`,
        details: { limit: MAX_ACTIVE_KEYS_PER_MODE, mode },
      });
    }
    const { key, rawKey } = await createApiKey(store, services.config, { accountId: account.id, name, mode });
    return reply.code(201).send({ key: keyView(key), api_key: rawKey });
  });

  app.delete('/keys/:id', { schema: { hide: true, params: KeyParams, response: { 200: OneKey } } }, async (request) => {
    const { account } = await signedIn(request, { csrf: true });
    const key = await store.getKey(request.params.id);
    // Another account's key is answered exactly like a key that does not exist.
    if (!key || key.accountId !== account.id) throw new ApiError('KEY_NOT_FOUND', { details: { provided: request.params.id } });
    // Already revoked: revoking again changes nothing and answers the same.
    await store.setKeyState(key.id, 'revoked');
    // This node refuses the key from the next request on; other nodes within their cache time.
    services.authenticator.invalidateKey(key.id);
    const listed = (await store.listKeys(account.id)).find((k) => k.id === key.id);
    return { key: keyView(listed ?? { ...key, state: 'revoked' }) };
  });

  app.get('/usage', { schema: { hide: true, querystring: UsageQuery, response: { 200: DashboardUsage } } }, async (request) => {
    const { account } = await signedIn(request, { csrf: false });
    return dashboardUsage(store, services.config, account, request.query.mode ?? 'live');
  });

  // The account's jobs, both modes, newest first, a page at a time (the queue's own cursor).
  app.get('/jobs', { schema: { hide: true, querystring: JobsQuery, response: { 200: JobList } } }, async (request) => {
    const { account } = await signedIn(request, { csrf: false });
    const { limit, cursor, status } = request.query;
    // The queue reads a cursor it cannot decode as "from the start": say so instead.
    if (cursor !== undefined && decodeCursor(cursor) === null) {
      throw new ApiError('INVALID_PARAMETER', { message: 'cursor is not a cursor this list gave out.', details: { field: 'cursor' } });
    }
    const page = await services.jobs.queue.list(account.id, { limit: limit ?? 20, cursor: cursor ?? null, ...(status ? { status } : {}) });
    return { jobs: page.jobs.map(jobView), next_cursor: page.nextCursor };
  });

  // Cancels a queued or running job (its runner stops at its next heartbeat and gives the held
  // credits back). A finished job is answered as it is: the dashboard deletes no results. As
  // DELETE /api/v1/stt/jobs/{id} does, a queued upload's file goes at once (no runner will).
  app.delete('/jobs/:id', { schema: { hide: true, params: JobParams, response: { 200: OneJob } } }, async (request) => {
    const { account } = await signedIn(request, { csrf: true });
    const { queue } = services.jobs;
    const notFound = () => new ApiError('NOT_FOUND', { message: 'No such job in this account.', details: { provided: request.params.id } });
    const job = /^job_[A-Za-z0-9]{20}$/.test(request.params.id) ? await queue.get(account.id, request.params.id) : null;
    if (!job) throw notFound();
    if (FINISHED.has(job.status)) return { job: jobView(job) };
    return { job: jobView(await cancelJob(queue, account.id, job)) };
  });
};
