// One /v1, two dialects (issue 28, item 4; issue 30, item 10; src/compat/dialect.ts): the
// official clients, unchanged but for their base URL, each get their own shape from the same
// paths: the Deepgram SDK's `manage.v1.models.list()` gets {stt, tts}, the openai SDK's
// `models.list()` OpenAI's list; a Deepgram path Parla does not serve is Deepgram's 404, an
// OpenAI one OpenAI's; a malformed URL under /v1 is the dialect's 400.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { DeepgramClient, DeepgramError } from '@deepgram/sdk';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let base: string;
let key: string;

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ apiKey: key } = await createTestAccount(t.services, { plan: 'pro', credits: 1000 }));
  await t.services.registry.whenReady();
});
after(() => t.close());

const deepgram = (apiKey = key) => new DeepgramClient({ apiKey, baseUrl: base, maxRetries: 0 } as never);
const openai = (apiKey = key) => new OpenAI({ apiKey, baseURL: `${base}/v1`, maxRetries: 0 });

test("Deepgram SDK: manage.v1.models.list() is Deepgram's {stt, tts}; get() by uuid and by name", async () => {
  const list = await deepgram().manage.v1.models.list();
  assert.ok(Array.isArray(list.stt) && list.stt.length > 0, JSON.stringify(list).slice(0, 200));
  assert.ok(Array.isArray(list.tts) && list.tts.length > 0);
  const nova = list.stt!.find((m) => m.canonical_name === 'nova-3');
  assert.ok(nova?.uuid && nova.batch === true && nova.streaming === true && (nova.languages ?? []).length > 0, JSON.stringify(nova));
  const thalia = list.tts!.find((m) => m.canonical_name === 'aura-2-thalia-en');
  assert.ok(thalia?.uuid);
  assert.equal('object' in list, false);
  const byUuid = await deepgram().manage.v1.models.get(nova.uuid);
  assert.equal(byUuid.canonical_name, 'nova-3');
  const byName = await deepgram().manage.v1.models.get('aura-2-thalia-en');
  assert.equal(byName.uuid, thalia.uuid);
  await assert.rejects(
    deepgram().manage.v1.models.get('no-such-model'),
    (err: unknown) =>
      err instanceof DeepgramError && err.statusCode === 404 && (err.body as { err_code?: string }).err_code === 'NOT_FOUND',
  );
});

test("openai SDK: models.list() and retrieve() are OpenAI's shape on the same path", async () => {
  const ids: string[] = [];
  for await (const m of openai().models.list()) ids.push(m.id);
  assert.ok(ids.includes('tts-1') && ids.includes('whisper-1'));
  assert.equal((await openai().models.retrieve('tts-1')).object, 'model');
  await assert.rejects(openai().models.retrieve('no-such-model'), OpenAI.NotFoundError);
});

test("errors follow the dialect: a bad Token key is INVALID_AUTH, a bad Bearer key OpenAI's 401", async () => {
  await assert.rejects(
    deepgram('svc_live_0000000000000000000000000000000000000000').manage.v1.models.list(),
    (err: unknown) =>
      err instanceof DeepgramError && err.statusCode === 401 && (err.body as { err_code?: string }).err_code === 'INVALID_AUTH',
  );
  await assert.rejects(
    openai('svc_live_0000000000000000000000000000000000000000').models.list(),
    (err: unknown) => err instanceof OpenAI.AuthenticationError && (err.error as { type?: string }).type === 'authentication_error',
  );
});

test("Deepgram paths Parla does not serve are Deepgram's 404 (through the SDK); OpenAI's are OpenAI's", async () => {
  await assert.rejects(
    deepgram().manage.v1.projects.list(),
    (err: unknown) =>
      err instanceof DeepgramError && err.statusCode === 404 && (err.body as { err_code?: string }).err_code === 'NOT_FOUND',
  );
  await assert.rejects(openai().files.list(), OpenAI.NotFoundError);
  for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
    for (const authorization of [`Token ${key}`, `Bearer ${key}`]) {
      const res = await fetch(`${base}/v1/speak`, { method, headers: { authorization } });
      assert.equal(res.status, 404);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.err_code, 'NOT_FOUND', `${method} ${authorization.split(' ')[0]}: ${JSON.stringify(body)}`);
      assert.equal(res.headers.get('dg-request-id'), body.request_id);
    }
  }
});

test("a malformed URL under /v1 is the dialect's 400", async () => {
  const bearer = await fetch(`${base}/v1/models/%ED%A0%80`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(bearer.status, 400);
  assert.equal(((await bearer.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
  const token = await fetch(`${base}/v1/models/%ED%A0%80`, { headers: { authorization: `Token ${key}` } });
  assert.equal(token.status, 400);
  assert.equal(((await token.json()) as { err_code: string }).err_code, 'Bad Request');
  const listen = await fetch(`${base}/v1/listen/%ZZ`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
  assert.equal(listen.status, 400);
  assert.equal(((await listen.json()) as { err_code: string }).err_code, 'Bad Request');
});
