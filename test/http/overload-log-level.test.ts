// Issue 30 item 12: a 503 SERVICE_OVERLOADED is the service protecting itself, logged as a warning,
// not an error; a real fault stays an error. Checked on the real request log of a refused
// transcription (every decoder held) and on the level table every edge uses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite } from '../helpers/speech.js';
import { ApiError } from '../../src/errors.js';
import { logLevelOf } from '../../src/faults/translate.js';

let t: TestApp;
const lines: any[] = [];

before(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  const { loggerOptions } = await import('../../src/app.js');
  t = await createTestApp({ PARLA_STT_DECODER_WAIT_SECONDS: '1' }, { logger: pino({ ...loggerOptions('info') }, sink) });
  await t.services.registry.whenReady();
});
after(() => t.close());

test('the level table: overload warn, other 5xx error, 4xx info', () => {
  assert.equal(logLevelOf(new ApiError('SERVICE_OVERLOADED')), 'warn');
  assert.equal(logLevelOf(new ApiError('INTERNAL_ERROR')), 'error');
  assert.equal(logLevelOf(new ApiError('CREDIT_CHECK_FAILED')), 'error');
  assert.equal(logLevelOf(new ApiError('INVALID_REQUEST')), 'info');
});

test('a transcription refused with 503 SERVICE_OVERLOADED (every decoder held) is logged at warn, with no error record', async () => {
  const { apiKey } = await createTestAccount(t.services);
  const holder = await t.services.registry.sttBinding('cipher-fast')!.engine.openStream({ language: 'en', profile: 'fast', keywords: [] });
  let res;
  try {
    const { body, contentType } = await multipart(readFileSync(flite('Hello there.')), { model: 'cipher-fast' });
    res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/transcribe',
      headers: { 'x-api-key': apiKey, 'content-type': contentType },
      payload: body,
    });
  } finally {
    await holder.close();
  }
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.json().error.code, 'SERVICE_OVERLOADED');
  const records = lines.filter((l) => l.code === 'SERVICE_OVERLOADED');
  assert.ok(records.length >= 1, 'the refusal is logged');
  assert.ok(
    records.every((l) => l.level === 40),
    JSON.stringify(records.map((l) => l.level)),
  );
  assert.equal(lines.filter((l) => l.level >= 50).length, 0, 'no error-level record');
});
