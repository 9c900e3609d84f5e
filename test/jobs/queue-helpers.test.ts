// The queue's pure helpers: what the edge accepts as an Idempotency-Key, cursors clients cannot forge into errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clampLimit, decodeCursor, encodeCursor, validIdempotencyKey } from '../../src/jobs/queue.js';

test('Idempotency-Key: 1-255 visible ASCII characters', () => {
  for (const ok of ['a', 'order-123_retry:2', '550e8400-e29b-41d4-a716-446655440000', '~'.repeat(255)])
    assert.equal(validIdempotencyKey(ok), true, ok);
  for (const bad of ['', ' ', 'a b', 'tab\there', 'nul\u0000', 'é', 'x'.repeat(256), '\u{1F600}'])
    assert.equal(validIdempotencyKey(bad), false, JSON.stringify(bad));
});

test('cursors round-trip; anything else decodes to null; limits are clamped', () => {
  const c = encodeCursor(new Date(1_790_000_000_123), 'job_ABCDEFGHIJKLMNOPQRST');
  assert.deepEqual(decodeCursor(c), { createdAt: 1_790_000_000_123, id: 'job_ABCDEFGHIJKLMNOPQRST' });
  for (const bad of [
    '',
    'x',
    Buffer.from('12:nope').toString('base64url'),
    Buffer.from('abc:job_ABCDEFGHIJKLMNOPQRST').toString('base64url'),
    'A'.repeat(500),
  ])
    assert.equal(decodeCursor(bad), null, bad.slice(0, 20));
  assert.equal(clampLimit(undefined), 20);
  assert.equal(clampLimit(0), 1);
  assert.equal(clampLimit(1e9), 100);
  assert.equal(clampLimit(Number.NaN), 20);
});
