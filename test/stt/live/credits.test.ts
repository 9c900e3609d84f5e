// A live stream's credits alone (src/stt/live-credits.ts), on the real Billing and Store: grown as
// audio is covered, a short balance used to its last second, settled once for what was paid for.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../../helpers/app.js';
import { LiveCredits } from '../../../src/stt/live-credits.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function open(balance: number, heldSeconds: number, blockSeconds = 60) {
  const { apiKey } = await createTestAccount(t.services, { credits: balance });
  const auth = await t.services.authenticator.authenticate(apiKey);
  const work = await t.services.billing.begin(auth, {
    requestId: `req_credits_${Math.random()}`,
    kind: 'stt_realtime',
    model: 'cipher-fast',
    credits: heldSeconds * 2,
    characters: 0,
  });
  const credits = new LiveCredits(work, { heldSeconds, creditsPerSecond: 2, blockSeconds });
  return { credits, balance: () => t.services.billing.balance(auth) };
}

test('the hold grows a block at a time as audio is covered, and settles for the started seconds received', async () => {
  const { credits, balance } = await open(1000, 1, 60);
  assert.equal(await credits.cover(0.5), true);
  assert.equal(credits.heldSeconds, 1, 'the first second was held at the start');
  assert.equal(await credits.cover(1.2), true);
  assert.equal(credits.heldSeconds, 61, 'one block more');
  assert.equal(await credits.cover(61), true);
  assert.equal(credits.heldSeconds, 61);
  const bill = await credits.settle(61.4);
  assert.deepEqual(bill, { seconds: 61.4, billedSeconds: 62, credits: 124 });
  assert.equal(await balance(), 1000 - 124);
});

test('a short balance is used to its last second, then cover() answers false and the bill stops at what was held', async () => {
  // 11 credits at 2 per second: 5 whole seconds.
  const { credits, balance } = await open(11, 1, 60);
  assert.equal(await credits.cover(4.5), true, 'the block shrinks to what the balance covers');
  assert.equal(credits.heldSeconds, 5);
  assert.equal(await credits.cover(5.5), false);
  assert.equal(credits.exhausted, true);
  assert.equal(await credits.cover(5.6), false, 'stays exhausted');
  const bill = await credits.settle(7);
  assert.deepEqual(bill, { seconds: 5, billedSeconds: 5, credits: 10 });
  assert.equal(await balance(), 1);
});

test('nothing received releases the hold; abandon gives it back', async () => {
  const a = await open(100, 10);
  assert.deepEqual(await a.credits.settle(0), { seconds: 0, billedSeconds: 0, credits: 0 });
  assert.equal(await a.balance(), 100);
  const b = await open(100, 10);
  assert.equal(await b.balance(), 80, 'held while open');
  await b.credits.abandon();
  assert.equal(await b.balance(), 100);
});

test('waive(): the work failed before the client got anything; settle then bills nothing and gives the grown hold back', async () => {
  const { credits, balance } = await open(1000, 1, 60);
  assert.equal(await credits.cover(3), true);
  assert.equal(await balance(), 1000 - 122, 'held while open');
  credits.waive();
  assert.deepEqual(await credits.settle(3), { seconds: 0, billedSeconds: 0, credits: 0 });
  assert.equal(await balance(), 1000);
});
