// A node whose ffmpeg cannot encode (here: none at the path it was given) refuses OpenAI's opus and
// aac through the official client with a clear 400 naming the formats that work, bills nothing,
// and never sends another codec in their place; the formats with encoders of their own still work.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createServices, type Services } from '../../src/services.js';
import { createTestAccount } from '../helpers/app.js';
import { tempDir, testConfig } from '../helpers/env.js';

const tmp = tempDir('parla-openai-no-ffmpeg-');
let services: Services;
let app: FastifyInstance;
let client: OpenAI;
let accountId: string;

before(async () => {
  services = await createServices(testConfig({}, tmp.dir), pino({ level: 'silent' }) as never, { ffmpegBinary: '/nonexistent/ffmpeg' });
  app = await buildApp(services, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const acct = await createTestAccount(services, { plan: 'pro', credits: 100_000 });
  accountId = acct.accountId;
  client = new OpenAI({ apiKey: acct.apiKey, baseURL: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
});
after(async () => {
  await app.close();
  await services.close();
  tmp.cleanup();
});

test('opus and aac are refused (BadRequestError, param response_format, naming ffmpeg and the formats that work); nothing billed; mp3 still served', async () => {
  const balance = await services.store.getBalance(accountId, 'live');
  for (const response_format of ['opus', 'aac'] as const) {
    for (const stream_format of ['audio', 'sse'] as const) {
      await assert.rejects(
        client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format, stream_format }),
        (err: unknown) => {
          assert.ok(err instanceof OpenAI.BadRequestError);
          assert.equal((err.error as { param?: string }).param, 'response_format');
          assert.equal((err.error as { code?: string }).code, 'invalid_format');
          assert.match(err.message, /ffmpeg cannot encode (Opus|AAC).*mp3, flac, wav or pcm/);
          return true;
        },
      );
    }
  }
  assert.equal(await services.store.getBalance(accountId, 'live'), balance);
  const mp3 = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there.' });
  assert.equal(mp3.headers.get('content-type'), 'audio/mpeg');
});
