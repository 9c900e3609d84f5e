// One contract suite for every Store implementation (SQLite, PostgreSQL).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { HoldRequest, Store } from '../../src/storage/store.js';
import type { KeyMode, UsageRecord } from '../../src/accounts/types.js';

export interface StoreHandle {
  store: Store;
  cleanup(): Promise<void>;
}

const epoch = new Date(0);
const future = () => new Date(Date.now() + 60_000);

function holdReq(accountId: string, credits: number, extra: Partial<HoldRequest> = {}): HoldRequest {
  return { holdId: `hold_${randomUUID()}`, accountId, mode: 'live', credits, characters: 0, characterLimit: null, periodStart: epoch, expiresAt: future(), ...extra };
}

function usage(accountId: string, keyId: string, credits: number, extra: Partial<UsageRecord> = {}): UsageRecord {
  return { requestId: `req_${randomUUID()}`, accountId, keyId, mode: 'live', kind: 'tts', model: 'aura-prime', units: credits, characters: credits, credits, createdAt: new Date(), ...extra };
}

export function runStoreContract(name: string, open: () => Promise<StoreHandle>): void {
  describe(`Store contract: ${name}`, () => {
    let h: StoreHandle;
    let s: Store;
    before(async () => {
      h = await open();
      s = h.store;
      await s.migrate();
      await s.migrate(); // idempotent
    });
    after(() => h.cleanup());

    test('accounts: create, read, list, plan, features, password, credits', async () => {
      const a = await s.createAccount({ name: 'A', plan: 'basic', credits: 10, testCredits: 5 });
      assert.match(a.id, /^acc_[A-Za-z0-9]{20}$/);
      assert.equal(a.credits, 10);
      assert.equal(a.testCredits, 5);
      assert.ok(Object.values(a.features).every(Boolean));
      assert.deepEqual(await s.getAccount(a.id), a);
      assert.equal(await s.getAccount('acc_nope'), null);
      assert.ok((await s.listAccounts()).some((x) => x.id === a.id));
      assert.ok((await s.countAccounts()) >= 1);
      await s.setPlan(a.id, 'pro');
      await s.setFeature(a.id, 'stt_realtime', false);
      const b = (await s.getAccount(a.id))!;
      assert.equal(b.plan, 'pro');
      assert.equal(b.features.stt_realtime, false);
      assert.equal(b.features.tts, true);
      await s.setPassword(a.id, 'Owner@Example.com', 'scrypt$hash');
      const byMail = await s.findAccountByEmail('owner@example.com');
      assert.equal(byMail?.id, a.id);
      assert.equal(byMail?.passwordHash, 'scrypt$hash');
      assert.equal(await s.addCredits(a.id, 'live', 15), 25);
      assert.equal(await s.addCredits(a.id, 'live', -100), 0, 'never below zero');
      assert.equal(await s.addCredits(a.id, 'test', 1), 6);
      assert.equal(await s.getBalance(a.id, 'test'), 6);
    });

    test('keys: create, find by hash, states (revoked is final), touch, list with usage', async () => {
      const a = await s.createAccount({ name: 'K', plan: 'free', credits: 100 });
      const hash = randomUUID().replaceAll('-', '');
      const k = await s.createKey({ accountId: a.id, name: 'main', mode: 'test', hash, prefix: 'svc_test_AbCd', expiresAt: new Date('2099-01-01T00:00:00Z') });
      assert.match(k.id, /^key_/);
      assert.equal(k.state, 'active');
      assert.equal(k.mode, 'test');
      assert.equal(k.expiresAt?.toISOString(), '2099-01-01T00:00:00.000Z');
      const found = await s.findKeyByHash(hash);
      assert.equal(found?.key.id, k.id);
      assert.equal(found?.account.id, a.id);
      assert.equal(await s.findKeyByHash('0'.repeat(64)), null);
      assert.equal(await s.setKeyState(k.id, 'disabled'), true);
      assert.equal((await s.getKey(k.id))?.state, 'disabled');
      assert.equal(await s.setKeyState(k.id, 'active'), true);
      assert.equal(await s.setKeyState(k.id, 'revoked'), true);
      assert.equal(await s.setKeyState(k.id, 'active'), false);
      assert.equal(await s.setKeyState(k.id, 'disabled'), false);
      assert.equal((await s.getKey(k.id))?.state, 'revoked');
      const at = new Date(Math.floor(Date.now() / 1000) * 1000);
      await s.touchKey(k.id, at);
      assert.equal((await s.getKey(k.id))?.lastUsedAt?.getTime(), at.getTime());

      const k2 = await s.createKey({ accountId: a.id, name: 'second', mode: 'live', hash: randomUUID(), prefix: 'svc_live_XyZ1', expiresAt: null });
      const hold = holdReq(a.id, 7);
      await s.holdCredits(hold);
      await s.settleHold(hold.holdId, usage(a.id, k2.id, 7));
      const keys = await s.listKeys(a.id);
      assert.equal(keys.length, 2);
      const second = keys.find((x) => x.id === k2.id)!;
      assert.equal(second.requests, 1);
      assert.equal(second.creditsUsed, 7);
      assert.equal(keys.find((x) => x.id === k.id)!.requests, 0);
    });

    test('holds: settle refunds the difference into one ledger row; release refunds all', async () => {
      const a = await s.createAccount({ name: 'H', plan: 'pro', credits: 100 });
      const h1 = holdReq(a.id, 40);
      assert.deepEqual(await s.holdCredits(h1), { ok: true, balance: 60 });
      assert.equal(await s.getBalance(a.id, 'live'), 60);
      const u = usage(a.id, 'key_x', 30);
      assert.deepEqual(await s.settleHold(h1.holdId, u), { balance: 70 });
      // Settling again with the same request id is harmless.
      assert.deepEqual(await s.settleHold(h1.holdId, u), { balance: 70 });
      const rows = await s.listUsage(a.id, 'live', 10);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.credits, 30);
      assert.equal(rows[0]!.requestId, u.requestId);

      const h2 = holdReq(a.id, 50);
      await s.holdCredits(h2);
      await s.releaseHold(h2.holdId);
      await s.releaseHold(h2.holdId);
      assert.equal(await s.getBalance(a.id, 'live'), 70);

      assert.deepEqual(await s.holdCredits(holdReq(a.id, 71)), { ok: false, reason: 'credits', balance: 70 });
      // Test balance is separate.
      assert.equal((await s.holdCredits(holdReq(a.id, 1, { mode: 'test' }))).ok, false);
    });

    test('extendHold adds to a running hold with the same checks', async () => {
      const a = await s.createAccount({ name: 'E', plan: 'pro', credits: 10 });
      const h1 = holdReq(a.id, 4);
      await s.holdCredits(h1);
      assert.deepEqual(await s.extendHold(h1.holdId, 4, 0, null, epoch, future()), { ok: true, balance: 2 });
      assert.deepEqual(await s.extendHold(h1.holdId, 4, 0, null, epoch, future()), { ok: false, reason: 'credits', balance: 2 });
      await s.settleHold(h1.holdId, usage(a.id, 'key_x', 6));
      assert.equal(await s.getBalance(a.id, 'live'), 4);
    });

    test('expired holds are released', async () => {
      const a = await s.createAccount({ name: 'X', plan: 'pro', credits: 10 });
      await s.holdCredits(holdReq(a.id, 10, { expiresAt: new Date(Date.now() - 1000) }));
      assert.equal(await s.getBalance(a.id, 'live'), 0);
      assert.ok((await s.releaseExpiredHolds(new Date())) >= 1);
      assert.equal(await s.getBalance(a.id, 'live'), 10);
    });

    test('50 concurrent holds against a balance for exactly 20: 20 succeed, never below zero', async () => {
      const a = await s.createAccount({ name: 'C', plan: 'pro', credits: 200 });
      const results = await Promise.all(Array.from({ length: 50 }, () => s.holdCredits(holdReq(a.id, 10))));
      assert.equal(results.filter((r) => r.ok).length, 20);
      assert.equal(await s.getBalance(a.id, 'live'), 0);
    });

    test('50 concurrent hold+settle cycles: ledger and balance agree', async () => {
      const a = await s.createAccount({ name: 'D', plan: 'pro', credits: 250 });
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const hr = holdReq(a.id, 10);
          const r = await s.holdCredits(hr);
          if (!r.ok) return false;
          await s.settleHold(hr.holdId, usage(a.id, 'key_c', 10));
          return true;
        }),
      );
      assert.equal(outcomes.filter(Boolean).length, 25);
      assert.equal(await s.getBalance(a.id, 'live'), 0);
      const summary = await s.usageSummary(a.id, 'live', epoch, epoch);
      assert.equal(summary.creditsUsed, 250);
      assert.equal(summary.requestsThisMonth, 25);
    });

    test('monthly character quota holds under concurrency (ledger + held characters)', async () => {
      const a = await s.createAccount({ name: 'Q', plan: 'free', credits: 1_000_000 });
      const done = holdReq(a.id, 300, { characters: 300, characterLimit: 1000 });
      await s.holdCredits(done);
      await s.settleHold(done.holdId, usage(a.id, 'key_q', 300, { characters: 300 }));
      const results = await Promise.all(Array.from({ length: 20 }, () => s.holdCredits(holdReq(a.id, 100, { characters: 100, characterLimit: 1000 }))));
      assert.equal(results.filter((r) => r.ok).length, 7);
      const refused = results.find((r) => !r.ok);
      assert.ok(refused && !refused.ok && refused.reason === 'quota' && refused.charactersUsed === 1000);
      // In a new period the ledger's 300 no longer count, the 700 still held do.
      const next = new Date(Date.now() + 1000);
      assert.equal((await s.holdCredits(holdReq(a.id, 400, { characters: 400, characterLimit: 1000, periodStart: next }))).ok, false, 'held characters still count');
      assert.equal((await s.holdCredits(holdReq(a.id, 300, { characters: 300, characterLimit: 1000, periodStart: next }))).ok, true);
    });

    test('usage summary and daily usage match the ledger, per mode', async () => {
      const a = await s.createAccount({ name: 'U', plan: 'pro', credits: 1000, testCredits: 1000 });
      const spend = async (mode: KeyMode, kind: UsageRecord['kind'], credits: number, chars: number) => {
        const hr = holdReq(a.id, credits, { mode });
        await s.holdCredits(hr);
        await s.settleHold(hr.holdId, usage(a.id, 'key_u', credits, { mode, kind, characters: chars, units: chars || credits / 2 }));
      };
      await spend('live', 'tts', 100, 100);
      await spend('live', 'stt', 6, 0);
      await spend('live', 'stt_realtime', 4, 0);
      await spend('test', 'tts_stream', 9, 9);
      const live = await s.usageSummary(a.id, 'live', epoch, new Date(Date.now() - 3_600_000));
      assert.deepEqual(live, { charactersUsed: 100, creditsUsed: 110, requestsThisMonth: 3, requestsToday: 3 });
      const none = await s.usageSummary(a.id, 'live', new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
      assert.deepEqual(none, { charactersUsed: 0, creditsUsed: 0, requestsThisMonth: 0, requestsToday: 0 });
      const test_ = await s.usageSummary(a.id, 'test', epoch, epoch);
      assert.equal(test_.charactersUsed, 9);
      const daily = await s.dailyUsage(a.id, 'live', epoch);
      const today = new Date().toISOString().slice(0, 10);
      assert.deepEqual(daily, [
        { day: today, kind: 'stt', requests: 2, credits: 10 },
        { day: today, kind: 'tts', requests: 1, credits: 100 },
      ]);
      assert.equal(await s.getBalance(a.id, 'live'), 890);
    });
  });
}
