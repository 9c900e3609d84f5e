// The audio ceilings and markup prices of one TTS request (issue 19, docs/operations.md "Billing"):
// break silence and total audio over the limits are 400 AUDIO_TOO_LONG before any synthesis,
// audio that turns out longer than the estimate is stopped at the ceiling, and vocalizations and
// breaks are billed as characters.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

function expectError(res: { statusCode: number; json(): any }, status: number, code: string) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.equal(res.json().success, false);
  assert.equal(res.json().error.code, code);
  return res.json().error;
}

describe('default limits', () => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  before(async () => {
    t = await createTestApp({ PARLA_WORKERS: '2' });
    ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  });
  after(() => t.close());

  test('262 twenty-second breaks (87 minutes for 1 credit before) are 400 AUDIO_TOO_LONG, and cost nothing', async () => {
    const before = await t.services.store.getBalance(accountId, 'live');
    const started = performance.now();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tts/generate',
      headers: { 'x-api-key': key },
      payload: { text: 'a' + '<break time="20s"/>'.repeat(262), voice: 'Aria', sample_rate: 48000 },
    });
    const err = expectError(res, 400, 'AUDIO_TOO_LONG');
    assert.match(err.message, /5240 s of silence; .* at most 300 s/);
    assert.equal(err.details.limit_seconds, 300);
    assert.ok(performance.now() - started < 2000, 'refused before synthesis');
    assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
  });

  test('five minutes of breaks are allowed and billed 10 characters a second', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tts/generate',
      headers: { 'x-api-key': key },
      payload: { text: 'a' + '<break time="20s"/>'.repeat(15), voice: 'Aria' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-credits-used'], String(1 + 300 * 10));
    const header = 44;
    assert.ok((res.rawPayload.length - header) / 2 / 16000 >= 300, 'the silences are there');
  });

  test('the stream strips breaks, so they cost nothing there; vocalizations cost 10 characters', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tts/stream',
      headers: { 'x-api-key': key },
      payload: { text: 'Hi <laugh/> there.<break time="20s"/>', voice: 'Aria', sample_rate: 16000 },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-credits-reserved'], String([...'Hi  there.'].length + 10));
  });
});

describe('small limits (PARLA_TTS_*)', () => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  before(async () => {
    t = await createTestApp({
      PARLA_WORKERS: '2',
      PARLA_TTS_MAX_AUDIO_SECONDS: '8',
      PARLA_TTS_STREAM_MAX_AUDIO_SECONDS: '4',
      PARLA_TTS_MAX_BREAK_SECONDS: '5',
    });
    ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  });
  after(() => t.close());
  const generate = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/tts/generate', headers: { 'x-api-key': key }, payload });
  const stream = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/tts/stream', headers: { 'x-api-key': key }, payload });

  async function rawStream(body: string): Promise<{ status: number; bytes: number }> {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    return new Promise((resolve, reject) => {
      const req = http.request(
        { port, method: 'POST', path: '/api/v1/tts/stream', headers: { 'x-api-key': key, 'content-type': 'application/json' } },
        (res) => {
          let bytes = 0;
          res.on('data', (c: Buffer) => (bytes += c.length));
          res.on('error', () => undefined);
          res.on('close', () => resolve({ status: res.statusCode ?? 0, bytes }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  test('break silence: at the limit is fine, over it is AUDIO_TOO_LONG', async () => {
    assert.equal((await generate({ text: 'a<break time="2s"/>b<break time="3s"/>', voice: 'Aria' })).statusCode, 200);
    expectError(
      await generate({ text: 'a<break time="2s"/>b<break time="3s"/>c<break time="1ms"/>', voice: 'Aria' }),
      400,
      'AUDIO_TOO_LONG',
    );
  });

  test('text estimated past the ceiling is refused before synthesis', async () => {
    const text = 'word '.repeat(100);
    expectError(await generate({ text, voice: 'Aria' }), 400, 'AUDIO_TOO_LONG');
    expectError(await stream({ text, voice: 'Aria' }), 400, 'AUDIO_TOO_LONG');
  });

  test('vocalizations that run past the ceiling are stopped there (the estimate is low) and cost nothing', async () => {
    const before = await t.services.store.getBalance(accountId, 'live');
    // Eighteen laughs are estimated under 8 s but last longer.
    const err = expectError(await generate({ text: '<laugh/>'.repeat(18), voice: 'Aria' }), 400, 'AUDIO_TOO_LONG');
    assert.equal(err.details.limit_seconds, 8);
    assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
  });

  test('the stream ends at its ceiling: at most 4 s of audio, billed for what was sent', async () => {
    const before = await t.services.store.getBalance(accountId, 'live');
    const text = 'One two. Three four. Five six. Seven eight. Nine ten.';
    // The first sentence went out, so the answer is 200 and ends early (the chunked body is cut).
    const { status, bytes } = await rawStream(JSON.stringify({ text, voice: 'Aria', sample_rate: 16000 }));
    assert.equal(status, 200);
    const seconds = bytes / 2 / 16000;
    assert.ok(seconds > 0.5 && seconds <= 4, `${seconds} s`);
    // Settlement runs after the response ended.
    await new Promise((r) => setTimeout(r, 200));
    const spent = before - (await t.services.store.getBalance(accountId, 'live'));
    assert.ok(spent > 0 && spent < [...text].length, `spent ${spent}`);
  });
});
