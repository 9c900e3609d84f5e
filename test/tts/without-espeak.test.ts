// An operator can leave eSpeak NG (GPL-3.0) out by configuration (docs/licensing.md): with
// PARLA_CONFIG=config/without-espeak.json no TTS chain names it, the server does not warm it up,
// English is still spoken (Flite) and a language only eSpeak NG speaks is refused.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { EspeakEngine } from '../../src/engines/espeak/espeak-engine.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestAccount } from '../helpers/app.js';
import { testConfig } from '../helpers/env.js';
import { ROOT } from '../helpers/root.js';

const WITHOUT_ESPEAK = path.join(ROOT, 'config', 'without-espeak.json');

let server: RunningServer | undefined;
let calls = 0;
const original = EspeakEngine.prototype.synthesize;
EspeakEngine.prototype.synthesize = function (this: EspeakEngine, ...args: Parameters<EspeakEngine['synthesize']>) {
  calls++;
  return original.apply(this, args);
};
afterEach(async () => {
  await server?.stop();
  server = undefined;
  calls = 0;
});

test('the override names every TTS model of config/parla.json, and eSpeak in none of them', () => {
  const base = JSON.parse(readFileSync(path.join(ROOT, 'config', 'parla.json'), 'utf8')) as { ttsBindings: Record<string, string[]> };
  const over = JSON.parse(readFileSync(WITHOUT_ESPEAK, 'utf8')) as { ttsBindings: Record<string, string[]> };
  assert.deepEqual(Object.keys(over.ttsBindings).sort(), Object.keys(base.ttsBindings).sort());
  for (const [model, chain] of Object.entries(over.ttsBindings)) assert.ok(!chain.some((id) => id.includes('espeak')), model);
});

test('by default eSpeak starts with its first text (decision #98); PARLA_ESPEAK_WARM_WORKERS=2 warms two workers', async () => {
  server = await startServer(testConfig({ PARLA_WORKERS: '2' }), { warmUpEngines: true });
  assert.equal(calls, 0, 'eSpeak was not called while starting');
  assert.ok(server.services.registry.ttsLanguages('aura-prime').has('de-DE'));
  await server.stop();
  server = await startServer(testConfig({ PARLA_WORKERS: '2', PARLA_ESPEAK_WARM_WORKERS: '2' }), { warmUpEngines: true });
  assert.equal(calls, 2, `eSpeak synthesized ${calls} times while warming up`);
});

test('without eSpeak: no warm-up, English spoken by Flite, German refused', async () => {
  server = await startServer(testConfig({ PARLA_CONFIG: WITHOUT_ESPEAK }), { warmUpEngines: true });
  assert.equal(calls, 0, 'eSpeak was not called while starting');
  assert.ok(!server.services.registry.ttsLanguages('aura-prime').has('de-DE'));
  const { apiKey } = await createTestAccount(server.services, { plan: 'pro', credits: 1_000_000 });
  const generate = (payload: object) =>
    server!.app.inject({ method: 'POST', url: '/api/v1/tts/generate', headers: { 'x-api-key': apiKey }, payload });
  for (const model of ['aura-lite', 'aura-prime', 'aura-max']) {
    const res = await generate({ text: 'Hello there.', voice: 'Aria', model });
    assert.equal(res.statusCode, 200, `${model}: ${res.body}`);
  }
  const german = await generate({ text: 'Hallo zusammen.', voice: 'Anna', language: 'de-DE' });
  assert.equal(german.statusCode, 400, german.body);
  assert.equal(german.json().error.code, 'LANGUAGE_NOT_SUPPORTED');
  assert.equal(calls, 0, 'eSpeak was not called for any request');
});
