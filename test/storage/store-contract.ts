// One contract suite for every Store implementation (SQLite, PostgreSQL).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { HoldRequest, Store } from '../../src/storage/store.js';
import type { KeyMode, UsageRecord } from '../../src/domain/accounts.js';
import { generateApiKey, hashApiKey, keyPrefix } from '../../src/accounts/api-keys.js';

export interface StoreHandle {
  store: Store;
  cleanup(): Promise<void>;
  /** Everything the database holds, as text (file bytes or every row), to search for secrets. */
  dump(): Promise<string>;
}

const epoch = new Date(0);
const future = () => new Date(Date.now() + 60_000);

function holdReq(accountId: string, credits: number, extra: Partial<HoldRequest> = {}): HoldRequest {
  return {
    holdId: `hold_${randomUUID()}`,
    accountId,
    mode: 'live',
    credits,
    characters: 0,
    characterLimit: null,
    periodStart: epoch,
    expiresAt: future(),
    ...extra,
  };
}

function usage(accountId: string, keyId: string, credits: number, extra: Partial<UsageRecord> = {}): UsageRecord {
  return {
    requestId: `req_${randomUUID()}`,
    accountId,
    keyId,
    mode: 'live',
    kind: 'tts',
    model: 'aura-prime',
    units: credits,
    characters: credits,
    credits,
    createdAt: new Date(),
    ...extra,
  };
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
      const k = await s.createKey({
        accountId: a.id,
        name: 'main',
        mode: 'test',
        hash,
        prefix: 'svc_test_AbCd',
        expiresAt: new Date('2099-01-01T00:00:00Z'),
      });
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

      const k2 = await s.createKey({
        accountId: a.id,
        name: 'second',
        mode: 'live',
        hash: randomUUID(),
        prefix: 'svc_live_XyZ1',
        expiresAt: null,
      });
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
      const results = await Promise.all(
        Array.from({ length: 20 }, () => s.holdCredits(holdReq(a.id, 100, { characters: 100, characterLimit: 1000 }))),
      );
      assert.equal(results.filter((r) => r.ok).length, 7);
      const refused = results.find((r) => !r.ok);
      assert.ok(refused && !refused.ok && refused.reason === 'quota' && refused.charactersUsed === 1000);
      // In a new period the ledger's 300 no longer count, the 700 still held do.
      const next = new Date(Date.now() + 1000);
      assert.equal(
        (await s.holdCredits(holdReq(a.id, 400, { characters: 400, characterLimit: 1000, periodStart: next }))).ok,
        false,
        'held characters still count',
      );
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

    test('accounts: emails are unique and case-insensitive; the password hash stays out of Account', async () => {
      const a = await s.createAccount({ name: 'M', plan: 'free', email: 'Mixed@Example.org', passwordHash: 'h1' });
      assert.equal(a.email, 'mixed@example.org');
      assert.equal(a.credits, 0);
      assert.equal(a.plan, 'free');
      assert.ok(!('passwordHash' in a) && !('password_hash' in a));
      assert.equal((await s.findAccountByEmail('MIXED@example.ORG'))?.passwordHash, 'h1');
      assert.equal(await s.findAccountByEmail('nobody@example.org'), null);
      await assert.rejects(s.createAccount({ name: 'M2', plan: 'free', email: 'mixed@example.org' }));
      const b = await s.createAccount({ name: 'M3', plan: 'basic' });
      await assert.rejects(s.setPassword(b.id, 'MIXED@example.org', 'h2'));
      assert.equal((await s.getAccount(b.id))?.email, null);
      const ids = (await s.listAccounts()).map((x) => x.id);
      assert.ok(ids.indexOf(a.id) < ids.indexOf(b.id), 'listed in creation order');
      assert.equal(await s.countAccounts(), ids.length);
      await s.ping();
    });

    test('keys: every state transition; revoked is final; unknown keys', async () => {
      const a = await s.createAccount({ name: 'T', plan: 'basic' });
      const hash = randomUUID();
      const mk = (h = randomUUID()) =>
        s.createKey({ accountId: a.id, name: 'k', mode: 'live', hash: h, prefix: 'svc_live_Tt', expiresAt: null });
      const k = await mk(hash);
      assert.equal(k.expiresAt, null);
      assert.equal(k.lastUsedAt, null);
      assert.ok(Math.abs(k.createdAt.getTime() - Date.now()) < 60_000);
      const steps: Array<[import('../../src/domain/accounts.js').StoredKeyState, boolean, string]> = [
        ['disabled', true, 'disabled'],
        ['disabled', true, 'disabled'],
        ['active', true, 'active'],
        ['active', true, 'active'],
        ['disabled', true, 'disabled'],
        ['revoked', true, 'revoked'],
        ['active', false, 'revoked'],
        ['disabled', false, 'revoked'],
        ['revoked', false, 'revoked'],
      ];
      for (const [to, allowed, after] of steps) {
        assert.equal(await s.setKeyState(k.id, to), allowed, `-> ${to}`);
        assert.equal((await s.getKey(k.id))?.state, after);
      }
      const k2 = await mk();
      assert.equal(await s.setKeyState(k2.id, 'revoked'), true, 'active -> revoked');
      assert.equal(await s.setKeyState(k2.id, 'active'), false);
      // Authentication still finds refused keys, to answer with the right code.
      assert.equal((await s.findKeyByHash(hash))?.key.state, 'revoked');
      await assert.rejects(mk(hash), 'key hashes are unique');
      assert.deepEqual((await s.listKeys(a.id)).map((x) => `${x.id}:${x.state}`).sort(), [`${k.id}:revoked`, `${k2.id}:revoked`].sort());
      assert.equal(await s.setKeyState('key_missing', 'active'), false);
      assert.equal(await s.getKey('key_missing'), null);
      await s.touchKey('key_missing', new Date());
      assert.equal((await s.listKeys('acc_missing')).length, 0);
    });

    test('keys: the full key never reaches the database, only its hash and display prefix', async () => {
      const a = await s.createAccount({ name: 'S', plan: 'pro' });
      const full = generateApiKey('live');
      const hash = hashApiKey('contract-secret', full);
      const k = await s.createKey({ accountId: a.id, name: 'secret', mode: 'live', hash, prefix: keyPrefix(full), expiresAt: null });
      assert.equal(k.prefix, keyPrefix(full));
      assert.ok(!JSON.stringify(k).includes(full));
      const found = await s.findKeyByHash(hash);
      assert.equal(found?.key.id, k.id);
      assert.equal(found?.key.state, 'active');
      assert.ok(!JSON.stringify(found).includes(hash), 'the hash is not handed back either');
      const dump = await h.dump();
      assert.ok(dump.includes(hash), 'the dump really holds the stored rows');
      assert.ok(!dump.includes(full), 'full key stored');
      assert.ok(!dump.includes(full.slice(keyPrefix(full).length)), 'secret part stored');
      await s.setKeyState(k.id, 'disabled');
      assert.equal((await s.findKeyByHash(hash))?.key.state, 'disabled', 'refused keys are still found, with their state');
    });

    test('settle: beyond the hold only what the balance allows; the ledger records what was charged', async () => {
      const a = await s.createAccount({ name: 'O', plan: 'pro', credits: 30 });
      const h1 = holdReq(a.id, 10);
      await s.holdCredits(h1);
      // 20 left; 15 more than held is fine.
      assert.deepEqual(await s.settleHold(h1.holdId, usage(a.id, 'key_o', 25)), { balance: 5 });
      const h2 = holdReq(a.id, 5);
      await s.holdCredits(h2);
      // Balance 0: an overrun of 10 cannot be taken.
      assert.deepEqual(await s.settleHold(h2.holdId, usage(a.id, 'key_o', 15)), { balance: 0 });
      const rows = await s.listUsage(a.id, 'live', 10);
      assert.deepEqual(
        rows.map((r) => r.credits),
        [5, 25],
      );
      assert.equal((await s.usageSummary(a.id, 'live', epoch, epoch)).creditsUsed, 30);
      // A free request (0 credits) still gets its ledger row.
      await s.addCredits(a.id, 'live', 3);
      const h3 = holdReq(a.id, 3);
      await s.holdCredits(h3);
      assert.deepEqual(await s.settleHold(h3.holdId, usage(a.id, 'key_o', 0)), { balance: 3 });
      assert.equal((await s.usageSummary(a.id, 'live', epoch, epoch)).requestsThisMonth, 3);
    });

    test('settle: idempotent per request id, also concurrently and across holds', async () => {
      const a = await s.createAccount({ name: 'I', plan: 'pro', credits: 100 });
      const h1 = holdReq(a.id, 20);
      await s.holdCredits(h1);
      const u = usage(a.id, 'key_i', 12);
      const both = await Promise.all([s.settleHold(h1.holdId, u), s.settleHold(h1.holdId, u), s.settleHold(h1.holdId, u)]);
      assert.deepEqual(
        both.map((b) => b.balance),
        [88, 88, 88],
      );
      // A second hold settled under the same request id is refunded whole: no double charge.
      const h2 = holdReq(a.id, 30);
      await s.holdCredits(h2);
      assert.equal(await s.getBalance(a.id, 'live'), 58);
      assert.deepEqual(await s.settleHold(h2.holdId, { ...u, credits: 30 }), { balance: 88 });
      // A settled hold settled again under another request id is not billed again either.
      assert.deepEqual(await s.settleHold(h1.holdId, { ...u, requestId: `req_${randomUUID()}` }), { balance: 88 });
      const rows = await s.listUsage(a.id, 'live', 10);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.credits, 12);
    });

    test('holds expire: only expired ones are released, to the right balance; a late settle still bills', async () => {
      await s.releaseExpiredHolds(new Date(Date.now() + 3_600_000)); // open holds left by earlier tests
      const a = await s.createAccount({ name: 'Y', plan: 'pro', credits: 100, testCredits: 50 });
      const now = Date.now();
      const old1 = holdReq(a.id, 10, { expiresAt: new Date(now - 1) });
      const old2 = holdReq(a.id, 20, { mode: 'test', expiresAt: new Date(now - 5000) });
      const fresh = holdReq(a.id, 30, { expiresAt: new Date(now + 60_000) });
      for (const r of [old1, old2, fresh]) assert.equal((await s.holdCredits(r)).ok, true);
      assert.equal(await s.getBalance(a.id, 'live'), 60);
      assert.equal(await s.getBalance(a.id, 'test'), 30);
      assert.equal(await s.releaseExpiredHolds(new Date(now)), 2);
      assert.equal(await s.releaseExpiredHolds(new Date(now)), 0);
      assert.equal(await s.getBalance(a.id, 'live'), 70);
      assert.equal(await s.getBalance(a.id, 'test'), 50);
      // The work behind old1 finished after all: billed from the balance, one ledger row.
      assert.deepEqual(await s.settleHold(old1.holdId, usage(a.id, 'key_y', 8)), { balance: 62 });
      // Its characters no longer count as held, and an extend of a released hold is refused.
      await assert.rejects(s.extendHold(old2.holdId, 1, 0, null, epoch, future()));
      assert.equal(await s.getBalance(a.id, 'test'), 50);
      // Extending moves the expiry: the fresh hold survives a sweep past its first deadline.
      await s.extendHold(fresh.holdId, 0, 0, null, epoch, new Date(now + 600_000));
      assert.equal(await s.releaseExpiredHolds(new Date(now + 120_000)), 0);
      await s.settleHold(fresh.holdId, usage(a.id, 'key_y', 30));
      assert.equal(await s.getBalance(a.id, 'live'), 62);
      assert.equal((await s.usageSummary(a.id, 'live', epoch, epoch)).creditsUsed, 38);
    });

    test('hold, extend, settle, release and expiry sweeps racing: every credit accounted for', async () => {
      const initial = 1000;
      const a = await s.createAccount({ name: 'R', plan: 'pro', credits: initial });
      const holds = Array.from({ length: 30 }, (_, i) =>
        holdReq(a.id, 10, { expiresAt: new Date(Date.now() + (i % 3 === 0 ? -1 : 60_000)) }),
      );
      await Promise.all(holds.map((r) => s.holdCredits(r)));
      const ignore = () => undefined;
      await Promise.all(
        holds.flatMap((r, i) => [
          s.extendHold(r.holdId, 5, 0, null, epoch, new Date(Date.now() + 60_000)).catch(ignore),
          i % 2 === 0 ? s.settleHold(r.holdId, usage(a.id, 'key_r', 12, { requestId: `req_race_${a.id}_${i}` })) : s.releaseHold(r.holdId),
          i % 5 === 0 ? s.releaseExpiredHolds(new Date()) : Promise.resolve(0),
        ]),
      );
      await s.releaseExpiredHolds(new Date(Date.now() + 3_600_000));
      const balance = await s.getBalance(a.id, 'live');
      const summary = await s.usageSummary(a.id, 'live', epoch, epoch);
      assert.equal(summary.requestsThisMonth, 15);
      assert.ok(balance >= 0);
      assert.equal(balance + summary.creditsUsed, initial);
    });

    test('quota: none when the limit is null; extendHold counts characters; modes are counted apart', async () => {
      const a = await s.createAccount({ name: 'Z', plan: 'free', credits: 10_000, testCredits: 10_000 });
      assert.equal((await s.holdCredits(holdReq(a.id, 1, { characters: 5000, characterLimit: null }))).ok, true);
      const h1 = holdReq(a.id, 1, { characters: 400, characterLimit: 1000 });
      assert.deepEqual(await s.holdCredits(h1), { ok: false, reason: 'quota', charactersUsed: 5000 });
      const t1 = holdReq(a.id, 1, { mode: 'test', characters: 900, characterLimit: 1000 });
      assert.equal((await s.holdCredits(t1)).ok, true, 'test mode has its own counter');
      assert.deepEqual(await s.extendHold(t1.holdId, 1, 100, 1000, epoch, future()), { ok: true, balance: 9998 });
      assert.deepEqual(await s.extendHold(t1.holdId, 1, 1, 1000, epoch, future()), { ok: false, reason: 'quota', charactersUsed: 1000 });
      // STT holds count no characters and pass a full quota.
      assert.equal((await s.holdCredits(holdReq(a.id, 1, { mode: 'test', characters: 0, characterLimit: 1000 }))).ok, true);
    });

    test('quota: the characters counted always equal ledger since periodStart + held, whatever the order', async () => {
      const a = await s.createAccount({ name: 'N', plan: 'free', credits: 1_000_000 });
      const p1 = new Date('2026-01-01T07:00:00.000Z');
      const p2 = new Date('2026-02-01T07:00:00.000Z');
      const used = async (periodStart: Date) => {
        const r = await s.holdCredits(holdReq(a.id, 1, { characters: 1, characterLimit: 0, periodStart }));
        assert.ok(!r.ok && r.reason === 'quota');
        return r.charactersUsed;
      };
      const write = async (iso: string, characters: number, requestId = `req_${randomUUID()}`) => {
        const hr = holdReq(a.id, 1);
        await s.holdCredits(hr);
        await s.settleHold(hr.holdId, usage(a.id, 'key_n', 1, { characters, createdAt: new Date(iso), requestId }));
      };
      assert.equal(await used(p1), 0);
      await write('2026-01-15T00:00:00.000Z', 10, `req_n_${a.id}`);
      assert.equal(await used(p1), 10);
      await write('2026-01-01T06:59:59.999Z', 1);
      assert.equal(await used(p1), 10, 'before the period start');
      await write('2026-01-01T07:00:00.000Z', 2);
      assert.equal(await used(p1), 12, 'at the period start');
      await write('2026-01-15T00:00:00.000Z', 10, `req_n_${a.id}`);
      assert.equal(await used(p1), 12, 'a repeated settle counts once');
      await write('2026-02-10T00:00:00.000Z', 100);
      assert.equal(await used(p1), 112);
      assert.equal(await used(p2), 100, 'next period');
      await write('2026-02-11T00:00:00.000Z', 1000);
      assert.equal(await used(p2), 1100);
      assert.equal(await used(p1), 1112, 'back to an older period start (a node with a late clock)');
      const open = holdReq(a.id, 1, { characters: 7, characterLimit: null });
      await s.holdCredits(open);
      assert.equal(await used(p2), 1107);
      await s.settleHold(open.holdId, usage(a.id, 'key_n', 1, { characters: 5, createdAt: new Date('2026-02-12T00:00:00.000Z') }));
      assert.equal(await used(p2), 1105, 'settled at its actual characters');
      assert.equal((await s.usageSummary(a.id, 'live', p2, p2)).charactersUsed, 1105);
    });

    test('webhook secret: made once (concurrent first calls agree), kept, rotated; unknown accounts get none', async () => {
      const a = await s.createAccount({ name: 'W', plan: 'pro' });
      const firsts = await Promise.all(['whsec_first_a', 'whsec_first_b', 'whsec_first_c'].map((f) => s.getWebhookSecret(a.id, f)));
      assert.equal(new Set(firsts).size, 1, 'every caller sees the same secret');
      assert.match(firsts[0]!, /^whsec_first_[abc]$/);
      assert.equal(await s.getWebhookSecret(a.id, 'whsec_other'), firsts[0], 'an existing secret is kept');
      assert.equal(await s.rotateWebhookSecret(a.id, 'whsec_rotated'), true);
      assert.equal(await s.getWebhookSecret(a.id, 'whsec_other'), 'whsec_rotated');
      assert.equal(await s.getWebhookSecret('acc_nope', 'whsec_x'), null);
      assert.equal(await s.rotateWebhookSecret('acc_nope', 'whsec_x'), false);
      const b = await s.createAccount({ name: 'W2', plan: 'pro' });
      assert.equal(await s.getWebhookSecret(b.id, 'whsec_b'), 'whsec_b', 'secrets are per account');
      assert.equal(await s.getWebhookSecret(a.id, 'whsec_other'), 'whsec_rotated');
    });

    test('dashboard sessions: create, read until expiry, touch, delete one, per account, expired', async () => {
      const a = await s.createAccount({ name: 'S', plan: 'basic' });
      const b = await s.createAccount({ name: 'S2', plan: 'basic' });
      const t0 = new Date('2026-05-01T10:00:00.000Z');
      const at = (ms: number) => new Date(t0.getTime() + ms);
      const mk = (accountId: string, idHash: string, expiresAt: Date) => ({
        idHash,
        accountId,
        csrfToken: `csrf_${idHash}`,
        createdAt: t0,
        lastSeenAt: t0,
        expiresAt,
      });
      const h1 = `h1_${a.id}`;
      const h2 = `h2_${a.id}`;
      const h3 = `h3_${b.id}`;
      await s.createSession(mk(a.id, h1, at(1000)));
      await s.createSession(mk(a.id, h2, at(5000)));
      await s.createSession(mk(b.id, h3, at(5000)));
      await assert.rejects(s.createSession(mk(a.id, h1, at(1000))), 'the token hash is unique');
      assert.deepEqual(await s.getSession(h1, t0), mk(a.id, h1, at(1000)));
      assert.equal(await s.getSession(h1, at(1000)), null, 'expired at expiresAt');
      assert.equal(await s.getSession('nope', t0), null);

      await s.touchSession(h1, at(900), at(2000));
      const touched = await s.getSession(h1, at(1500));
      assert.equal(touched?.lastSeenAt.toISOString(), at(900).toISOString());
      assert.equal(touched?.expiresAt.toISOString(), at(2000).toISOString());
      assert.equal(touched?.createdAt.toISOString(), t0.toISOString());

      assert.equal(await s.deleteExpiredSessions(at(2000)), 1, 'only h1 had expired');
      assert.equal(await s.getSession(h1, t0), null);
      assert.ok(await s.getSession(h2, t0));
      await s.deleteSession(h2);
      assert.equal(await s.getSession(h2, t0), null);
      await s.deleteSession(h2); // deleting twice is harmless
      await s.createSession(mk(a.id, `h4_${a.id}`, at(5000)));
      await s.createSession(mk(a.id, `h5_${a.id}`, at(5000)));
      assert.equal(await s.deleteAccountSessions(a.id), 2);
      assert.ok(await s.getSession(h3, t0), 'another account keeps its sessions');
      assert.equal(await s.deleteExpiredSessions(at(4999)), 0);
      assert.equal(await s.deleteExpiredSessions(at(5000)), 1);
    });

    test('usage by UTC day and period boundaries, with exact timestamps', async () => {
      const a = await s.createAccount({ name: 'W', plan: 'pro', credits: 1000 });
      const at = (iso: string, kind: UsageRecord['kind'], credits: number, characters = 0) => ({ iso, kind, credits, characters });
      const entries = [
        at('2026-02-28T23:59:59.999Z', 'tts', 1, 10),
        at('2026-03-01T00:00:00.000Z', 'tts_stream', 2, 20),
        at('2026-03-01T13:30:00.123Z', 'stt', 4),
        at('2026-03-01T23:59:59.999Z', 'stt_realtime', 8),
        at('2026-03-02T00:00:00.000Z', 'tts', 16, 160),
      ];
      for (const [i, e] of entries.entries()) {
        const hr = holdReq(a.id, e.credits);
        await s.holdCredits(hr);
        await s.settleHold(
          hr.holdId,
          usage(a.id, 'key_w', e.credits, {
            kind: e.kind,
            characters: e.characters,
            createdAt: new Date(e.iso),
            requestId: `req_w_${a.id}_${i}`,
          }),
        );
      }
      assert.deepEqual(await s.dailyUsage(a.id, 'live', new Date('2026-02-28T23:59:59.999Z')), [
        { day: '2026-02-28', kind: 'tts', requests: 1, credits: 1 },
        { day: '2026-03-01', kind: 'stt', requests: 2, credits: 12 },
        { day: '2026-03-01', kind: 'tts', requests: 1, credits: 2 },
        { day: '2026-03-02', kind: 'tts', requests: 1, credits: 16 },
      ]);
      assert.equal((await s.dailyUsage(a.id, 'live', new Date('2026-03-01T00:00:00.000Z'))).length, 3, 'from is inclusive');
      assert.deepEqual(await s.dailyUsage(a.id, 'live', new Date('2026-03-01T00:00:00.001Z')), [
        { day: '2026-03-01', kind: 'stt', requests: 2, credits: 12 },
        { day: '2026-03-02', kind: 'tts', requests: 1, credits: 16 },
      ]);
      assert.deepEqual(await s.dailyUsage(a.id, 'test', epoch), []);
      assert.deepEqual(await s.usageSummary(a.id, 'live', new Date('2026-03-01T00:00:00.000Z'), new Date('2026-03-01T23:59:59.999Z')), {
        charactersUsed: 180,
        creditsUsed: 30,
        requestsThisMonth: 4,
        requestsToday: 2,
      });
      // A day that starts before the period (the period began this morning) counts the whole day.
      assert.equal(
        (await s.usageSummary(a.id, 'live', new Date('2026-03-02T00:00:00.000Z'), new Date('2026-03-01T00:00:00.000Z'))).requestsToday,
        4,
      );
      const recent = await s.listUsage(a.id, 'live', 2);
      assert.deepEqual(
        recent.map((r) => r.createdAt.toISOString()),
        ['2026-03-02T00:00:00.000Z', '2026-03-01T23:59:59.999Z'],
      );
      assert.deepEqual(
        { ...recent[1]!, createdAt: recent[1]!.createdAt.getTime() },
        {
          requestId: `req_w_${a.id}_3`,
          accountId: a.id,
          keyId: 'key_w',
          mode: 'live',
          kind: 'stt_realtime',
          model: 'aura-prime',
          units: 8,
          characters: 0,
          credits: 8,
          createdAt: Date.parse('2026-03-01T23:59:59.999Z'),
        },
      );
      const keys = await s.listKeys(a.id);
      assert.equal(keys.length, 0, "ledger rows of keys that are not the account's own do not invent keys");
    });
  });
}
