import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateApiKey, hashApiKey, keyMode, keyPrefix } from '../../src/accounts/api-keys.js';
import { currentPeriod, isoDate } from '../../src/accounts/period.js';
import { billableSeconds, countCharacters } from '../../src/accounts/pricing.js';

test('API keys have the live/test prefix and 40 random base62 characters', () => {
  const live = generateApiKey('live');
  const testKey = generateApiKey('test');
  assert.match(live, /^svc_live_[A-Za-z0-9]{40}$/);
  assert.match(testKey, /^svc_test_[A-Za-z0-9]{40}$/);
  assert.equal(keyMode(live), 'live');
  assert.equal(keyMode(testKey), 'test');
  assert.equal(keyMode('svc_prod_abc'), null);
  assert.equal(keyMode(`${live}!`), null);
  assert.notEqual(generateApiKey('live'), live);
  assert.equal(keyPrefix(live), live.slice(0, 13));
});

test('key hashes are keyed: another secret gives another hash', () => {
  const key = generateApiKey('live');
  const a = hashApiKey('secret-one-0123456789', key);
  assert.equal(a, hashApiKey('secret-one-0123456789', key));
  assert.notEqual(a, hashApiKey('secret-two-0123456789', key));
  assert.ok(!a.includes(key.slice(9)));
});

test('monthly periods follow the anchor day and clamp to short months', () => {
  const anchor = new Date('2026-01-31T10:00:00Z');
  const p = currentPeriod(anchor, new Date('2026-02-15T00:00:00Z'));
  assert.equal(p.start.toISOString(), '2026-01-31T10:00:00.000Z');
  assert.equal(p.end.toISOString(), '2026-02-28T10:00:00.000Z');
  const q = currentPeriod(anchor, new Date('2026-03-01T00:00:00Z'));
  assert.equal(q.start.toISOString(), '2026-02-28T10:00:00.000Z');
  assert.equal(isoDate(q.end), '2026-03-31');
  const dec = currentPeriod(new Date('2025-12-05T00:00:00Z'), new Date('2026-12-20T00:00:00Z'));
  assert.equal(isoDate(dec.start), '2026-12-05');
  assert.equal(isoDate(dec.end), '2027-01-05');
});

test('characters are code points and seconds are started seconds, minimum one', () => {
  assert.equal(countCharacters('héllo'), 5);
  assert.equal(countCharacters('😀 a'), 3);
  assert.equal(billableSeconds(0), 1);
  assert.equal(billableSeconds(0.2), 1);
  assert.equal(billableSeconds(1), 1);
  assert.equal(billableSeconds(1.01), 2);
  assert.equal(billableSeconds(59.5), 60);
});
