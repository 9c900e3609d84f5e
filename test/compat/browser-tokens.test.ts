// Browser tokens (docs/realtime.md, "Browser tokens"), on SQLite and PostgreSQL: made by the native
// POST /api/v1/auth/tokens, OpenAI's /v1/realtime/client_secrets (through the official `openai`
// package) and Deepgram's /v1/auth/grant (through the official @deepgram/sdk); each opens the live
// sockets for its key (native, Deepgram's /v1/listen with the SDK's accessToken) and nothing else;
// a revoked key's tokens stop at once; expired, altered and foreign tokens are refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import OpenAI from 'openai';
import { DeepgramClient } from '@deepgram/sdk';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { freshPgSchema } from '../helpers/env.js';
import { RealtimeServer } from '../../src/realtime/server.js';
import { LiveTokens, TOKEN_MAX_TTL_SECONDS } from '../../src/accounts/live-tokens.js';

/** Opens the native socket with `credential` as api_key: the first message, or the refusal's status. */
function openNative(port: number, credential: string): Promise<{ status: number; first?: any }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/api/v1/stt/realtime/stream?api_key=${encodeURIComponent(credential)}`, {
      rejectUnauthorized: false,
    });
    ws.once('message', (data) => {
      resolve({ status: 101, first: JSON.parse(data.toString()) });
      ws.close();
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
    });
    ws.once('error', () => undefined);
  });
}

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`browser tokens (${store})`, () => {
    let t: TestApp;
    let rt: RealtimeServer;
    let rtPort: number;
    let apiPort: number;
    let key: string;
    let keyId: string;
    let dropSchema: () => Promise<void> = async () => undefined;

    before(async () => {
      let env: Record<string, string> = {};
      if (store === 'postgres') {
        const pg = await freshPgSchema();
        env = { DATABASE_URL: pg.url };
        dropSchema = () => pg.drop();
      }
      t = await createTestApp(env);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      apiPort = (t.app.server.address() as AddressInfo).port;
      rt = new RealtimeServer(t.services, { recognizerWaitMs: 5000 });
      rtPort = await rt.listen(0, '127.0.0.1');
      ({ apiKey: key, keyId } = await createTestAccount(t.services, { credits: 10_000 }));
      await t.services.registry.whenReady();
    });
    after(async () => {
      await rt.close();
      await t.close();
      await dropSchema();
    });

    const post = (url: string, body: unknown, headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });

    test('native: POST /api/v1/auth/tokens gives a 60 s token that opens the native socket and no HTTP route', async () => {
      const res = await post('/api/v1/auth/tokens', {}, { 'x-api-key': key });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.match(body.token, /^ek_/);
      assert.equal(body.expires_in, 60);
      assert.ok(Math.abs(Date.parse(body.expires_at) - (Date.now() + 60_000)) < 5000);
      const opened = await openNative(rtPort, body.token);
      assert.equal(opened.status, 101);
      assert.equal(opened.first.type, 'Metadata');
      // Usable only to open a live socket: the HTTP API refuses it as a key.
      const usage = await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': body.token } });
      assert.equal(usage.statusCode, 401);
      // A token cannot make tokens.
      assert.equal((await post('/api/v1/auth/tokens', {}, { 'x-api-key': body.token })).statusCode, 401);
    });

    test('the three token routes are in /openapi.json, the native one with its request and answer schemas', async () => {
      const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const native = spec.paths['/api/v1/auth/tokens'].post;
      assert.ok(JSON.stringify(native.requestBody).includes('ttl_seconds'));
      assert.ok(JSON.stringify(native.responses['200']).includes('expires_at'));
      assert.deepEqual(spec.paths['/v1/realtime/client_secrets'].post.tags, ['openai']);
      assert.deepEqual(spec.paths['/v1/auth/grant'].post.tags, ['deepgram']);
    });

    test('native: ttl_seconds is checked (1 to the maximum, whole seconds)', async () => {
      for (const ttl of [0, -1, 1.5, TOKEN_MAX_TTL_SECONDS + 1, '60', null]) {
        const res = await post('/api/v1/auth/tokens', { ttl_seconds: ttl }, { 'x-api-key': key });
        if (ttl === null) assert.equal(res.statusCode, 200, 'null means absent');
        else assert.equal(res.statusCode, 400, `ttl ${String(ttl)}: ${res.body}`);
      }
      const ok = await post('/api/v1/auth/tokens', { ttl_seconds: TOKEN_MAX_TTL_SECONDS }, { 'x-api-key': key });
      assert.equal(ok.json().expires_in, TOKEN_MAX_TTL_SECONDS);
    });

    test('OpenAI: client.realtime.clientSecrets.create() answers {value: ek_..., expires_at, session}', async () => {
      const client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${apiPort}/v1` });
      const secret = await client.realtime.clientSecrets.create({
        expires_after: { anchor: 'created_at', seconds: 120 },
        session: {
          type: 'transcription',
          audio: {
            input: {
              format: { type: 'audio/pcm', rate: 24000 },
              transcription: { model: 'gpt-4o-transcribe', language: 'en' },
              turn_detection: null,
            },
          },
        },
      });
      assert.match(secret.value, /^ek_/);
      assert.ok(Math.abs(secret.expires_at - (Date.now() / 1000 + 120)) < 5);
      assert.equal(secret.session.type, 'transcription');
      assert.deepEqual((secret.session as any).audio.input.transcription, { model: 'gpt-4o-transcribe', language: 'en', prompt: '' });
      assert.equal((secret.session as any).audio.input.turn_detection, null);
      assert.equal((await openNative(rtPort, secret.value)).status, 101);
      // Refusals in OpenAI's shape.
      await assert.rejects(
        client.realtime.clientSecrets.create({ expires_after: { anchor: 'created_at', seconds: 7200 } }),
        (e: any) => e.status === 400 && e.error?.type === 'invalid_request_error',
      );
      await assert.rejects(
        client.realtime.clientSecrets.create({ session: { type: 'realtime' } as never }),
        (e: any) => e.status === 400 && e.error?.param === 'session.type',
      );
      const stranger = new OpenAI({ apiKey: 'svc_live_' + 'x'.repeat(40), baseURL: `http://127.0.0.1:${apiPort}/v1` });
      await assert.rejects(stranger.realtime.clientSecrets.create({}), (e: any) => e.status === 401);
    });

    test('Deepgram: the SDK grants a token (30 s asked) and its accessToken opens /v1/listen', async () => {
      const client = new DeepgramClient({ apiKey: key, baseUrl: `http://127.0.0.1:${apiPort}` });
      const grant = await client.auth.v1.tokens.grant({ ttl_seconds: 30 });
      assert.match(grant.access_token, /^ek_/);
      assert.equal(grant.expires_in, 30);
      const browser = new DeepgramClient({ accessToken: grant.access_token, baseUrl: `ws://127.0.0.1:${apiPort}` } as never);
      const socket = await browser.listen.v1.connect({
        model: 'nova-3',
        encoding: 'linear16',
        sample_rate: 16000,
        reconnectAttempts: 0,
      } as never);
      const messages: any[] = [];
      socket.on('message', (m: any) => messages.push(m));
      const closed = new Promise<number>((r) => socket.on('close', (e: any) => r(e.code)));
      socket.connect();
      await socket.waitForOpen();
      socket.sendCloseStream({ type: 'CloseStream' });
      assert.equal(await closed, 1000);
      assert.equal(messages.at(-1)?.type, 'Metadata');
      // The grant refuses a ttl beyond the maximum, in Deepgram's body.
      const res = await post('/v1/auth/grant', { ttl_seconds: TOKEN_MAX_TTL_SECONDS + 1 }, { authorization: `Token ${key}` });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().err_code, 'Bad Request');
    });

    test("a revoked key's tokens stop working; expired, altered and foreign tokens are refused", async () => {
      const { apiKey: other, keyId: otherId } = await createTestAccount(t.services, { credits: 1000 });
      const token = (await post('/api/v1/auth/tokens', { ttl_seconds: 600 }, { 'x-api-key': other })).json().token as string;
      assert.equal((await openNative(rtPort, token)).status, 101);
      assert.ok(await t.services.store.setKeyState(otherId, 'revoked'));
      t.services.authenticator.invalidate();
      assert.equal((await openNative(rtPort, token)).status, 401);

      const tokens = t.services.authenticator.tokens;
      const expired = tokens.issue(keyId, 60, Date.now() - 61_000).token;
      assert.equal((await openNative(rtPort, expired)).status, 401);
      const good = tokens.issue(keyId, 60).token;
      const altered = good.slice(0, 5) + (good[5] === 'A' ? 'B' : 'A') + good.slice(6);
      assert.equal((await openNative(rtPort, altered)).status, 401);
      const foreign = new LiveTokens('another deployment secret').issue(keyId, 60).token;
      assert.equal((await openNative(rtPort, foreign)).status, 401);
      assert.equal((await openNative(rtPort, 'ek_' + 'A'.repeat(5000))).status, 401);
      assert.equal((await openNative(rtPort, good)).status, 101);
    });
  });
}
