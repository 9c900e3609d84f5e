// The dashboard's JSON API under /dashboard/api: sign-in/out, the account's API keys, its usage
// and its transcription jobs. These routes are public to the API-key check (src/http/auth.ts) and
// authenticated by the session cookie instead; every state-changing one also needs the session's
// X-CSRF-Token. What they do is in account.ts; here the HTTP (cookies, status codes, views).
// Contract and security model: docs/dashboard.md.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.js';
import { SESSION_COOKIE, sessionCookie } from '../http/session-cookie.js';
import { cancelOwnJob, createOwnKey, type Dashboard, getOwnJob, listOwnJobs, revokeOwnKey, signedIn, signIn } from './account.js';
import { checkCsrf, checkOrigin } from './csrf.js';
import { prepareDummyHash } from './password.js';
import { dashboardUsage } from './usage.js';
import { accountView, jobDetailView, jobView, keyView } from './views.js';
import {
  CreatedKey,
  DashboardUsage,
  JobList,
  JobParams,
  JobsQuery,
  KeyList,
  KeyParams,
  NewKeyBody,
  OneJob,
  OneJobDetail,
  OneKey,
  SessionView,
  SignInBody,
  UsageQuery,
} from './schemas.js';

export const dashboardApiRoutes: FastifyPluginAsyncTypebox<{ services: Services; dashboard: Dashboard }> = async (
  app,
  { services, dashboard },
) => {
  const { store } = services;
  const { sessions } = dashboard;
  prepareDummyHash();

  // Answers carry session tokens and once-shown keys: no cache may keep them.
  app.addHook('onSend', async function noStore(_request, reply, payload) {
    reply.header('Cache-Control', 'no-store');
    return payload;
  });

  app.post(
    '/session',
    { schema: { hide: true, body: SignInBody, response: { 200: SessionView } } },
    async function createSession(request, reply) {
      // No session yet, so no CSRF token: the origin check (and SameSite) guard this one.
      checkOrigin(request);
      const { token, session, account } = await signIn(
        services,
        dashboard,
        request,
        request.body.email.toLowerCase(),
        request.body.password,
      );
      reply.setCookie(SESSION_COOKIE, token, sessions.cookieOptions(request));
      return { account: accountView(account), csrf_token: session.csrfToken };
    },
  );

  app.get('/session', { schema: { hide: true, response: { 200: SessionView } } }, async function getSession(request) {
    const { session, account } = await signedIn(services, dashboard, request, { csrf: false });
    return { account: accountView(account), csrf_token: session.csrfToken };
  });

  app.delete('/session', { schema: { hide: true } }, async function deleteSession(request, reply) {
    const session = await sessions.resolve(sessionCookie(request));
    // Without a live session there is nothing to protect: just drop the stale cookie.
    if (session) {
      checkCsrf(request, session);
      await sessions.destroy(session);
    }
    const { maxAge: _maxAge, ...options } = sessions.cookieOptions(request);
    reply.clearCookie(SESSION_COOKIE, options);
    return reply.code(204).send();
  });

  app.get('/keys', { schema: { hide: true, response: { 200: KeyList } } }, async function listKeys(request) {
    const { account } = await signedIn(services, dashboard, request, { csrf: false });
    const now = new Date();
    return { keys: (await store.listKeys(account.id)).map((k) => keyView(k, now)) };
  });

  app.post('/keys', { schema: { hide: true, body: NewKeyBody, response: { 201: CreatedKey } } }, async function createKey(request, reply) {
    const { account } = await signedIn(services, dashboard, request, { csrf: true });
    const { key, rawKey } = await createOwnKey(services, account, request.body.name, request.body.mode);
    return reply.code(201).send({ key: keyView(key), api_key: rawKey });
  });

  app.delete('/keys/:id', { schema: { hide: true, params: KeyParams, response: { 200: OneKey } } }, async function revokeKey(request) {
    const { account } = await signedIn(services, dashboard, request, { csrf: true });
    return { key: keyView(await revokeOwnKey(services, account, request.params.id)) };
  });

  app.get(
    '/usage',
    { schema: { hide: true, querystring: UsageQuery, response: { 200: DashboardUsage } } },
    async function getUsage(request) {
      const { account } = await signedIn(services, dashboard, request, { csrf: false });
      return dashboardUsage(store, services.config, account, request.query.mode ?? 'live');
    },
  );

  app.get('/jobs', { schema: { hide: true, querystring: JobsQuery, response: { 200: JobList } } }, async function listJobs(request) {
    const { account } = await signedIn(services, dashboard, request, { csrf: false });
    const page = await listOwnJobs(services, account, request.query);
    return { jobs: page.jobs.map(jobView), next_cursor: page.nextCursor };
  });

  // One job with its result and webhook attempts (the dashboard's job view).
  app.get('/jobs/:id', { schema: { hide: true, params: JobParams, response: { 200: OneJobDetail } } }, async function getJob(request) {
    const { account } = await signedIn(services, dashboard, request, { csrf: false });
    return { job: jobDetailView(await getOwnJob(services, account, request.params.id)) };
  });

  app.delete('/jobs/:id', { schema: { hide: true, params: JobParams, response: { 200: OneJob } } }, async function cancelJob(request) {
    const { account } = await signedIn(services, dashboard, request, { csrf: true });
    return { job: jobView(await cancelOwnJob(services, account, request.params.id)) };
  });
};
