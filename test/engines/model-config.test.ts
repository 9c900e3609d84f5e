// The model lifecycle settings are validated at start like every other setting: defaults, and a
// bad value stops the process with a message naming the variable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config.js';
import { testConfig } from '../helpers/env.js';

test('model lifecycle settings: defaults, parsing and refusals', () => {
  const d = testConfig().models;
  assert.equal(d.ttlSeconds, 600);
  assert.equal(d.loadWaitSeconds, 60);
  assert.deepEqual(d.preload, []);
  assert.ok(d.memoryMB >= 256);
  const set = testConfig({
    PARLA_MODEL_TTL: '30',
    PARLA_MODEL_MEMORY_MB: '2048',
    PARLA_MODELS_PRELOAD: ' whisper-base.en, zipformer-en ,whisper-base.en',
    PARLA_MODEL_LOAD_WAIT: '5',
  }).models;
  assert.deepEqual(set, { ttlSeconds: 30, memoryMB: 2048, preload: ['whisper-base.en', 'zipformer-en'], loadWaitSeconds: 5 });
  for (const [name, value, message] of [
    ['PARLA_MODEL_TTL', '0', /PARLA_MODEL_TTL must be between 1/],
    ['PARLA_MODEL_TTL', '10m', /PARLA_MODEL_TTL must be a whole number/],
    ['PARLA_MODEL_MEMORY_MB', '-5', /PARLA_MODEL_MEMORY_MB must be a whole number/],
    ['PARLA_MODEL_LOAD_WAIT', '0', /PARLA_MODEL_LOAD_WAIT must be between 1/],
    ['PARLA_MODELS_PRELOAD', 'ok,../etc', /PARLA_MODELS_PRELOAD: "..\/etc" is not a model name/],
  ] as const) {
    assert.throws(
      () => testConfig({ [name]: value }),
      (err: unknown) => err instanceof ConfigError && message.test(err.message),
      `${name}=${value}`,
    );
  }
});
