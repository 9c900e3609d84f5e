// `null` for a field of a JSON body means "not given", on every endpoint: the default applies, a
// required field is missing (and refused as such), and a field whose schema allows null keeps it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@fastify/type-provider-typebox';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { nullableAsAbsent } from '../../src/http/null-means-absent.js';

let t: TestApp;
let key: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
});
after(() => t.close());

const post = (url: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload });

test('/tts/generate: speed, pitch, model, language and format sent as null are their defaults', async () => {
  const plain = await post('/api/v1/tts/generate', { text: 'Null means not given.', voice: 'Aria' });
  assert.equal(plain.statusCode, 200);
  const nulls = await post('/api/v1/tts/generate', {
    text: 'Null means not given.',
    voice: 'Aria',
    speed: null,
    pitch: null,
    model: null,
    language: null,
    format: null,
  });
  assert.equal(nulls.statusCode, 200, nulls.body);
  assert.equal(nulls.headers['content-type'], 'audio/wav');
  assert.ok(nulls.rawPayload.equals(plain.rawPayload), 'the same audio as without the fields');
});

test('/tts/stream: sample_rate and speed sent as null are their defaults', async () => {
  const res = await post('/api/v1/tts/stream', {
    text: 'Streaming with nulls.',
    voice: 'Aria',
    sample_rate: null,
    speed: null,
    pitch: null,
    model: null,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['x-sample-rate'], '24000');
  assert.ok(res.rawPayload.length > 24000);
});

test('a required field sent as null is missing; other bad values are still refused', async () => {
  const noText = await post('/api/v1/tts/generate', { text: null, voice: 'Aria' });
  assert.equal(noText.statusCode, 400);
  assert.equal(noText.json().error.code, 'MISSING_TEXT');
  const noVoice = await post('/api/v1/tts/generate', { text: 'Hi.', voice: null });
  assert.equal(noVoice.statusCode, 400);
  assert.match(noVoice.json().error.message, /voice/);
  const badSpeed = await post('/api/v1/tts/generate', { text: 'Hi.', voice: 'Aria', speed: 'fast' });
  assert.equal(badSpeed.json().error.code, 'INVALID_SPEED');
});

test('which fields null drops: those whose schema rejects null', () => {
  const schema = Type.Object({
    text: Type.String(),
    speed: Type.Number({ default: 1 }),
    pitch: Type.Optional(Type.Number()),
    model: Type.Union([Type.Literal('a'), Type.Literal('b')], { default: 'a' }),
    expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  });
  assert.deepEqual(nullableAsAbsent(schema), ['text', 'speed', 'pitch', 'model']);
});
