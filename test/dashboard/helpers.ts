// Dashboard API tests: an account with a password, and a signed-in browser (cookie + CSRF token).

import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.js';
import { createTestAccount } from '../helpers/app.js';
import { hashPassword } from '../../src/dashboard/password.js';

export const PASSWORD = 'correct horse battery';
let counter = 0;

/** A fresh account with an email and password (and the usual live and test keys). */
export async function accountWithPassword(t: TestApp, opts: { credits?: number; testCredits?: number } = {}) {
  const acc = await createTestAccount(t.services, { plan: 'pro', ...opts });
  const email = `owner${++counter}.${acc.accountId.slice(4, 10).toLowerCase()}@example.com`;
  await t.services.store.setPassword(acc.accountId, email, await hashPassword(PASSWORD));
  return { ...acc, email };
}

/** Every test gets its own client address so the per-address sign-in limit never couples tests. */
let address = 0;
export function nextAddress(): string {
  address++;
  return `10.0.${Math.floor(address / 250)}.${(address % 250) + 1}`;
}

export interface Browser {
  cookie: string;
  csrf: string;
  /** Sends a request as this signed-in browser (cookie, and the CSRF header unless csrf: false). */
  request(opts: InjectOptions & { csrf?: boolean }): Promise<LightMyRequestResponse>;
}

export function signIn(t: TestApp, email: string, password = PASSWORD, extra: Partial<InjectOptions> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/api/session',
    payload: { email, password },
    remoteAddress: nextAddress(),
    ...extra,
  });
}

export async function signedIn(t: TestApp, email: string): Promise<Browser> {
  const res = await signIn(t, email);
  assert.equal(res.statusCode, 200, res.body);
  const cookie = res.cookies.find((c) => c.name === 'parla_session')!.value;
  const csrf = res.json().csrf_token as string;
  return {
    cookie,
    csrf,
    request({ csrf: withCsrf = true, ...opts }) {
      const headers = { ...(withCsrf ? { 'x-csrf-token': csrf } : {}), ...(opts.headers ?? {}) };
      return t.app.inject({ ...opts, headers, cookies: { parla_session: cookie } });
    },
  };
}

export function expectError(res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(typeof body.error.resolution, 'string');
  assert.equal(body.request_id, res.headers['x-request-id']);
  return body.error;
}
