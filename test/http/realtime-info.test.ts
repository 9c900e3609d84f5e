// GET /api/v1/stt/realtime/info (issue 19, item 8): concurrent_in_use counts the caller's other
// requests and streams, not the info request itself: 0 for an idle account, 1 while one upload is
// running, with the memory limiter and with Redis.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { REDIS_URL } from '../helpers/env.js';

for (const limiter of ['memory', 'redis'] as const) {
  describe(`with the ${limiter} limiter`, () => {
    let t: TestApp;
    let port: number;
    before(async () => {
      t = await createTestApp(limiter === 'redis' ? { REDIS_URL } : {});
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
    });
    after(() => t.close());

    const inUse = async (key: string) => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/stt/realtime/info', headers: { 'x-api-key': key } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().limits.concurrent_in_use as number;
    };

    test('the body keeps every field under its response schema, and says what serves each model', async () => {
      const { apiKey } = await createTestAccount(t.services);
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/stt/realtime/info', headers: { 'x-api-key': apiKey } });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'authentication',
        'containers',
        'encodings',
        'limits',
        'messages',
        'models',
        'parameters',
        'port',
        'protocol',
        'sample_rates',
        'url',
      ]);
      assert.deepEqual(Object.keys(body.limits).sort(), [
        'concurrent_in_use',
        'concurrent_streams',
        'credits_remaining',
        'idle_timeout_seconds',
        'max_session_seconds',
      ]);
      assert.equal(body.models.length, 6);
      for (const m of body.models) {
        assert.deepEqual(Object.keys(m).sort(), ['credits_per_second', 'engine', 'id', 'languages', 'loaded', 'provider']);
        // No models installed here: PocketSphinx serves every model.
        assert.equal(m.engine, 'pocketsphinx');
        assert.equal(typeof m.loaded, 'boolean');
      }
    });

    test('an idle account sees 0 in use; one running upload shows as 1, and 0 again once it is gone', async () => {
      const { apiKey } = await createTestAccount(t.services);
      assert.equal(await inUse(apiKey), 0);
      assert.equal(await inUse(apiKey), 0, 'the previous info request left nothing behind');

      // An upload whose body is still arriving holds its slot.
      const upload = net.connect(port, '127.0.0.1');
      upload.on('error', () => undefined);
      upload.write(
        `POST /api/v1/stt/transcribe HTTP/1.1\r\nHost: x\r\nX-API-Key: ${apiKey}\r\nContent-Type: multipart/form-data; boundary=abc\r\nContent-Length: 100000\r\n\r\n--abc\r\n`,
      );
      let seen = 0;
      for (let i = 0; i < 50 && seen === 0; i++) {
        seen = await inUse(apiKey);
        if (seen === 0) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(seen, 1);
      upload.destroy();
      let left = 1;
      for (let i = 0; i < 50 && left !== 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        left = await inUse(apiKey);
      }
      assert.equal(left, 0);
    });
  });
}
