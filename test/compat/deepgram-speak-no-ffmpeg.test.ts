// A node whose ffmpeg cannot encode (here: none at the path it was given) refuses Deepgram's opus
// and aac through the official SDK with Deepgram's 400 naming the encodings that work, bills
// nothing, and never sends another codec in their place; the other encodings still work. And an
// ffmpeg that passes the probe but fails on the speech: a 500 in Deepgram's shape, nothing billed
// (the encode is inside the billed step), and the encoder places are given back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { DeepgramClient, DeepgramError } from '@deepgram/sdk';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createServices, type Services } from '../../src/services.js';
import { createTestAccount } from '../helpers/app.js';
import { tempDir, testConfig } from '../helpers/env.js';

const tmp = tempDir('parla-deepgram-no-ffmpeg-');
let services: Services;
let app: FastifyInstance;
let client: DeepgramClient;
let accountId: string;

before(async () => {
  services = await createServices(testConfig({}, tmp.dir), pino({ level: 'silent' }) as never, { ffmpegBinary: '/nonexistent/ffmpeg' });
  app = await buildApp(services, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const acct = await createTestAccount(services, { plan: 'pro', credits: 100_000 });
  accountId = acct.accountId;
  client = new DeepgramClient({
    apiKey: acct.apiKey,
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    maxRetries: 0,
  } as never);
});
after(async () => {
  await app.close();
  await services.close();
  tmp.cleanup();
});

test("opus and aac are refused (DeepgramError 400, Deepgram's body naming ffmpeg and the encodings that work); nothing billed; mp3 still served", async () => {
  const balance = await services.store.getBalance(accountId, 'live');
  for (const encoding of ['opus', 'aac']) {
    await assert.rejects(
      client.speak.v1.audio.generate({ text: 'Hello there.', model: 'aura-2-thalia-en', encoding } as never),
      (err: unknown) => {
        assert.ok(err instanceof DeepgramError, String(err));
        assert.equal(err.statusCode, 400);
        const body = err.body as { err_code: string; err_msg: string; request_id: string };
        assert.equal(body.err_code, 'Bad Request');
        assert.match(body.err_msg, /ffmpeg cannot encode (Opus|AAC).*linear16, mulaw, alaw, mp3, flac/);
        assert.match(body.request_id, /^req_/);
        return true;
      },
    );
  }
  assert.equal(await services.store.getBalance(accountId, 'live'), balance);
  const mp3 = await client.speak.v1.audio.generate({ text: 'Hello there.', model: 'aura-2-thalia-en' } as never).withRawResponse();
  assert.equal(mp3.rawResponse.headers.get('content-type'), 'audio/mpeg');
});

test('an ffmpeg that fails on the speech: 500 in Deepgram shape, nothing billed, the encoder places given back', async () => {
  const dir = tempDir('parla-deepgram-ffmpeg-fails-');
  // The probe writes to /dev/null and passes; an encode of the speech (to pipe:1) fails.
  const fake = path.join(dir.dir, 'ffmpeg');
  writeFileSync(fake, '#!/bin/sh\nfor a in "$@"; do [ "$a" = pipe:1 ] && { echo broken >&2; exit 1; }; done\nexec ffmpeg "$@"\n');
  chmodSync(fake, 0o755);
  const s = await createServices(testConfig({}, dir.dir), pino({ level: 'silent' }) as never, { ffmpegBinary: fake });
  const a = await buildApp(s, { logger: false });
  try {
    await a.listen({ port: 0, host: '127.0.0.1' });
    const acct = await createTestAccount(s, { plan: 'pro', credits: 100_000 });
    const c = new DeepgramClient({
      apiKey: acct.apiKey,
      baseUrl: `http://127.0.0.1:${(a.server.address() as AddressInfo).port}`,
      maxRetries: 0,
    } as never);
    const balance = await s.store.getBalance(acct.accountId, 'live');
    // More requests than the node has encoder places and queue: a place not given back would
    // turn the later ones into 503 instead of 500.
    const n = s.config.workerThreads + s.config.engineQueueMax + 1;
    for (let i = 0; i < n; i++) {
      await assert.rejects(
        c.speak.v1.audio.generate({ text: 'Hello there.', model: 'aura-2-thalia-en', encoding: i % 2 ? 'aac' : 'opus' } as never),
        (err: unknown) => {
          assert.ok(err instanceof DeepgramError, String(err));
          assert.equal(err.statusCode, 500, JSON.stringify(err.body));
          assert.match((err.body as { request_id: string }).request_id, /^req_/);
          return true;
        },
      );
    }
    assert.equal(await s.store.getBalance(acct.accountId, 'live'), balance);
  } finally {
    await a.close();
    await s.close();
    dir.cleanup();
  }
});
