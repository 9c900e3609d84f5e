// One contract suite for every Limiter implementation (memory, Redis).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { admitNow, releaseNow, type Admission, type Limiter, type RateDecision, type SlotDecision } from '../../src/limits/limiter.js';

export interface LimiterHandle {
  limiter: Limiter;
  /** A second limiter sharing state with the first (another node), when the implementation can. */
  peer?: Limiter;
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `multiNode`: the implementation is shared by many nodes (its handle has a `peer`); only then are
 * the two-node cases part of its contract (a per-process limiter has no such promise to test).
 */
export function runLimiterContract(name: string, open: () => Promise<LimiterHandle>, opts: { multiNode?: boolean } = {}): void {
  describe(`Limiter contract: ${name}`, () => {
    let h: LimiterHandle;
    let l: Limiter;
    before(async () => {
      h = await open();
      l = h.limiter;
    });
    after(() => h.cleanup());

    test('a window allows its limit, then refuses with retryAfter; refusals are not counted', async () => {
      const acct = `acc_${randomUUID()}`;
      const windows = [
        { windowSeconds: 60, limit: 3 },
        { windowSeconds: 3600, limit: 5 },
      ];
      const first = await l.hit(acct, windows);
      assert.equal(first.allowed, true);
      assert.equal(first.limit, 3);
      assert.equal(first.remaining, 2);
      assert.ok(first.resetSeconds > 0 && first.resetSeconds <= 60);
      assert.equal(first.windows.length, 2);
      assert.deepEqual(
        first.windows.map((w) => w.remaining),
        [2, 4],
      );
      await l.hit(acct, windows);
      const third = await l.hit(acct, windows);
      assert.equal(third.remaining, 0);
      for (let i = 0; i < 3; i++) {
        const refused = await l.hit(acct, windows);
        assert.equal(refused.allowed, false);
        assert.equal(refused.windowSeconds, 60);
        assert.equal(refused.limit, 3);
        assert.equal(refused.remaining, 0);
        // The minute window started a moment ago: retry in (almost) a minute, and reset says the same.
        assert.ok(refused.retryAfter >= 58 && refused.retryAfter <= 60, `retryAfter ${refused.retryAfter}`);
        assert.equal(refused.resetSeconds, refused.retryAfter);
        // Every window is reported on a refusal too (RateLimit-Policy lists them all).
        assert.deepEqual(
          refused.windows.map((w) => [w.windowSeconds, w.limit, w.remaining]),
          [
            [60, 3, 0],
            [3600, 5, 2],
          ],
        );
      }
      // The refused hits did not eat into the hour window: 2 left there.
      const other = await l.hit(acct, [{ windowSeconds: 3600, limit: 5 }]);
      assert.equal(other.remaining, 1);
    });

    test('the tightest window is reported, and it resets', async () => {
      const acct = `acc_${randomUUID()}`;
      const w = [
        { windowSeconds: 1, limit: 2 },
        { windowSeconds: 3600, limit: 100 },
      ];
      assert.equal((await l.hit(acct, w)).remaining, 1);
      assert.equal((await l.hit(acct, w)).remaining, 0);
      assert.equal((await l.hit(acct, w)).allowed, false);
      await sleep(1100);
      const again = await l.hit(acct, w);
      assert.equal(again.allowed, true);
      assert.equal(again.windows[1]!.remaining, 97);
    });

    test('a refusal by the hour window gives the minute window its point back', async () => {
      const acct = `acc_${randomUUID()}`;
      const w = [
        { windowSeconds: 60, limit: 10 },
        { windowSeconds: 3600, limit: 2 },
      ];
      const first = await l.hit(acct, w);
      assert.equal(first.windowSeconds, 3600, 'the hour window is the tighter one');
      assert.equal(first.remaining, 1);
      await l.hit(acct, w);
      for (let i = 0; i < 3; i++) {
        const refused = await l.hit(acct, w);
        assert.equal(refused.allowed, false);
        assert.equal(refused.windowSeconds, 3600);
        assert.ok(refused.retryAfter > 3500 && refused.retryAfter <= 3600);
        assert.equal(refused.windows[0]!.remaining, 8, 'refused requests left the minute window alone');
      }
    });

    test('when several windows refuse, retryAfter waits for the last of them', async () => {
      const acct = `acc_${randomUUID()}`;
      const w = [
        { windowSeconds: 60, limit: 2 },
        { windowSeconds: 3600, limit: 2 },
      ];
      await l.hit(acct, w);
      await l.hit(acct, w);
      const refused = await l.hit(acct, w);
      assert.equal(refused.allowed, false);
      assert.equal(refused.windowSeconds, 3600);
      assert.ok(refused.retryAfter > 3500, `retryAfter ${refused.retryAfter}`);
      assert.deepEqual(
        refused.windows.map((x) => x.remaining),
        [0, 0],
      );
    });

    test('a burst at the limit lets exactly the limit through and counts nothing else', async () => {
      const acct = `acc_${randomUUID()}`;
      const w = [
        { windowSeconds: 60, limit: 10 },
        { windowSeconds: 3600, limit: 100 },
      ];
      const nodes = h.peer ? [l, h.peer] : [l];
      const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => nodes[i % nodes.length]!.hit(acct, w)));
      assert.equal(burst.filter((d) => d.allowed).length, 10);
      const after = await l.hit(acct, w);
      assert.equal(after.allowed, false);
      assert.equal(after.windows[1]!.remaining, 90, 'only the 10 allowed requests count in the hour window');
    });

    test("a plan change keeps the window's count and applies the new limit", async () => {
      const acct = `acc_${randomUUID()}`;
      for (let i = 0; i < 3; i++) await l.hit(acct, [{ windowSeconds: 60, limit: 10 }]);
      const downgraded = await l.hit(acct, [{ windowSeconds: 60, limit: 5 }]);
      assert.equal(downgraded.remaining, 1);
      await l.hit(acct, [{ windowSeconds: 60, limit: 5 }]);
      assert.equal((await l.hit(acct, [{ windowSeconds: 60, limit: 5 }])).allowed, false);
      const upgraded = await l.hit(acct, [{ windowSeconds: 60, limit: 100 }]);
      assert.equal(upgraded.allowed, true);
      assert.equal(upgraded.remaining, 94);
    });

    test('accounts are independent', async () => {
      const w = [{ windowSeconds: 60, limit: 1 }];
      const a = `acc_${randomUUID()}`;
      const b = `acc_${randomUUID()}`;
      assert.equal((await l.hit(a, w)).allowed, true);
      assert.equal((await l.hit(a, w)).allowed, false);
      assert.equal((await l.hit(b, w)).allowed, true);
    });

    test('slots: up to max, refused beyond, released (twice harmlessly)', async () => {
      const acct = `acc_${randomUUID()}`;
      const s1 = await l.acquireSlot(acct, 2, 10_000);
      const s2 = await l.acquireSlot(acct, 2, 10_000);
      assert.ok(s1.ok && s2.ok);
      assert.equal(s2.inUse, 2);
      const s3 = await l.acquireSlot(acct, 2, 10_000);
      assert.equal(s3.ok, false);
      assert.ok(!s3.ok && s3.retryAfter >= 1);
      assert.equal(await l.slotsInUse(acct), 2);
      await l.releaseSlot(acct, s1.slotId);
      await l.releaseSlot(acct, s1.slotId);
      assert.equal(await l.slotsInUse(acct), 1);
      assert.equal((await l.acquireSlot(acct, 2, 10_000)).ok, true);
    });

    test('an expired lease frees its slot; a renewed one keeps it', async () => {
      const acct = `acc_${randomUUID()}`;
      const a = await l.acquireSlot(acct, 2, 400);
      const b = await l.acquireSlot(acct, 2, 400);
      assert.ok(a.ok && b.ok);
      await sleep(100);
      await l.renewSlot(acct, b.slotId, 2000);
      await sleep(400);
      assert.equal(await l.slotsInUse(acct), 1, 'the unrenewed lease expired');
      assert.equal((await l.acquireSlot(acct, 2, 1000)).ok, true);
      assert.equal((await l.acquireSlot(acct, 2, 1000)).ok, false);
    });

    test('concurrent acquires never hand out more than max slots', async () => {
      const acct = `acc_${randomUUID()}`;
      const nodes = h.peer ? [l, h.peer] : [l];
      const got = await Promise.all(Array.from({ length: 20 }, (_, i) => nodes[i % nodes.length]!.acquireSlot(acct, 5, 10_000)));
      assert.equal(got.filter((g) => g.ok).length, 5);
      assert.equal(await l.slotsInUse(acct), 5);
      for (const g of got) if (g.ok) await nodes[0]!.releaseSlot(acct, g.slotId);
      assert.equal(await l.slotsInUse(acct), 0);
    });

    test('leases of different lengths expire independently; an expired lease cannot be renewed', async () => {
      const acct = `acc_${randomUUID()}`;
      const long = await l.acquireSlot(acct, 3, 5000);
      const short = await l.acquireSlot(acct, 3, 150);
      assert.ok(long.ok && short.ok);
      await sleep(300);
      assert.equal(await l.slotsInUse(acct), 1, 'the long lease outlives the short one');
      await l.renewSlot(acct, short.slotId, 5000);
      assert.equal(await l.slotsInUse(acct), 1, 'renewing after expiry does not bring the slot back');
      await l.releaseSlot(acct, long.slotId);
      assert.equal(await l.slotsInUse(acct), 0);
    });

    test('a slot refusal says when to retry', async () => {
      const acct = `acc_${randomUUID()}`;
      const held = await l.acquireSlot(acct, 1, 2500);
      assert.ok(held.ok);
      const refused = await l.acquireSlot(acct, 1, 2500);
      assert.ok(!refused.ok);
      assert.equal(refused.inUse, 1);
      assert.ok(refused.retryAfter >= 2 && refused.retryAfter <= 3, `the held lease ends in 2.5 s, retryAfter ${refused.retryAfter}`);
      const zero = await l.acquireSlot(`acc_${randomUUID()}`, 0, 1000);
      assert.ok(!zero.ok && zero.retryAfter >= 1, 'a plan with no slots refuses cleanly');
      await l.releaseSlot(acct, held.slotId);
    });

    test('admit, releaseSlot and the fast path: one type each, the same limits whichever way is taken', async () => {
      const acct = `acc_${randomUUID()}`;
      const w = [{ windowSeconds: 60, limit: 10 }];
      const pending = l.admit(acct, w, 1, 10_000);
      assert.ok(pending instanceof Promise, 'admit answers with a promise on every limiter');
      const a = await pending;
      assert.ok(a.slot?.ok);
      // admitNow / releaseNow take the immediate path where there is one, and share its state.
      const now = admitNow(l, acct, w, 1, 10_000);
      assert.equal(now instanceof Promise, l.immediate === undefined, 'synchronous exactly when the limiter has the fast path');
      const b = await now;
      assert.ok(b.slot && !b.slot.ok, 'the slot taken through admit is held for admitNow too');
      assert.equal(b.rate.remaining, 8);
      const released = l.releaseSlot(acct, a.slot.slotId);
      assert.ok(released instanceof Promise, 'releaseSlot answers with a promise on every limiter');
      await released;
      const c = await admitNow(l, acct, w, 1, 10_000);
      assert.ok(c.slot?.ok, 'free again');
      const freed = releaseNow(l, acct, c.slot.slotId);
      assert.equal(freed instanceof Promise, l.immediate === undefined);
      await freed;
      assert.equal(await l.slotsInUse(acct), 0);
    });

    test('admit: windows and slot in one step; a window refusal takes no slot, a slot refusal still counts', async () => {
      const acct = `acc_${randomUUID()}`;
      const w = [
        { windowSeconds: 60, limit: 3 },
        { windowSeconds: 3600, limit: 100 },
      ];
      const first = await l.admit(acct, w, 1, 10_000);
      assert.equal(first.rate.allowed, true);
      assert.deepEqual(
        first.rate.windows.map((x) => x.remaining),
        [2, 99],
      );
      assert.ok(first.slot?.ok);
      // The slot is taken: the second request passes the windows but not the concurrency limit.
      const second = await l.admit(acct, w, 1, 10_000);
      assert.equal(second.rate.allowed, true);
      assert.ok(second.slot && !second.slot.ok && second.slot.inUse === 1 && second.slot.retryAfter >= 1);
      await l.releaseSlot(acct, first.slot.slotId);
      const third = await l.admit(acct, w, 1, 10_000);
      assert.equal(third.rate.remaining, 0, 'the request refused a slot was counted');
      assert.ok(third.slot?.ok);
      await l.releaseSlot(acct, third.slot.slotId);
      const refused = await l.admit(acct, w, 1, 10_000);
      assert.equal(refused.rate.allowed, false);
      assert.equal(refused.slot, null);
      assert.equal(await l.slotsInUse(acct), 0, 'a refused request takes no slot');
      assert.equal(
        (await l.hit(acct, [{ windowSeconds: 3600, limit: 100 }])).remaining,
        96,
        'admit and hit count in the same windows; the refusal was not counted',
      );
    });

    test('a burst of admits decides in order: slots to the first, windows refuse the last, and releases go first', async () => {
      const acct = `acc_${randomUUID()}`;
      const w = [
        { windowSeconds: 60, limit: 6 },
        { windowSeconds: 3600, limit: 100 },
      ];
      const held = await l.admit(acct, w, 3, 10_000);
      assert.ok(held.slot?.ok);
      // Released in the same turn as the burst is admitted: the release happened first.
      const release = l.releaseSlot(acct, held.slot.slotId);
      const burst = await Promise.all(Array.from({ length: 9 }, () => l.admit(acct, w, 3, 10_000)));
      await release;
      // Five more fit the minute window (6), three of them get the three slots; the last four are refused by the window.
      assert.deepEqual(
        burst.map((a) => a.rate.allowed),
        [true, true, true, true, true, false, false, false, false],
      );
      assert.deepEqual(
        burst.map((a) => (a.slot === null ? null : a.slot.ok)),
        [true, true, true, false, false, null, null, null, null],
      );
      assert.deepEqual(
        burst.slice(0, 5).map((a) => a.rate.windows[0]!.remaining),
        [4, 3, 2, 1, 0],
      );
      assert.deepEqual(
        burst.slice(0, 5).map((a) => a.slot!.inUse),
        [1, 2, 3, 3, 3],
      );
      assert.ok(burst.slice(5).every((a) => a.rate.retryAfter > 0));
      assert.equal(await l.slotsInUse(acct), 3);
      for (const a of burst) if (a.slot?.ok) await l.releaseSlot(acct, a.slot.slotId);
      assert.equal(await l.slotsInUse(acct), 0);
      assert.equal((await l.hit(acct, [{ windowSeconds: 3600, limit: 100 }])).remaining, 93, 'six counted in the hour, refusals not');
    });

    test('one turn of mixed plans, plain hits and lone slots decides each by its own terms', async () => {
      const a = `acc_${randomUUID()}`;
      const b = `acc_${randomUUID()}`;
      const small = [{ windowSeconds: 60, limit: 2 }];
      const large = [
        { windowSeconds: 60, limit: 5 },
        { windowSeconds: 3600, limit: 50 },
      ];
      // Interleaved in one turn: runs of the same terms and changes between them.
      const turn = await Promise.all([
        l.admit(a, small, 1, 10_000),
        l.admit(a, small, 1, 10_000),
        l.admit(b, large, 2, 10_000),
        l.admit(a, small, 1, 10_000),
        l.hit(b, large),
        l.admit(b, large, 2, 10_000),
        l.admit(b, large, 2, 10_000),
        l.acquireSlot(b, 3, 10_000),
        l.admit(b, large, 2, 10_000),
      ]);
      const [a1, a2, b1, a3, bHit, b2, b3, bLone, b4] = turn as [
        Admission,
        Admission,
        Admission,
        Admission,
        RateDecision,
        Admission,
        Admission,
        SlotDecision,
        Admission,
      ];
      // a: small plan, limit 2 a minute, one slot: the first gets it, the second is counted but has no slot, the third is refused.
      assert.deepEqual(
        [a1, a2, a3].map((x) => [x.rate.allowed, x.slot?.ok ?? null]),
        [
          [true, true],
          [true, false],
          [false, null],
        ],
      );
      assert.equal(a2.slot!.inUse, 1);
      // b: large plan, limit 5 a minute, two slots; the plain hit counts but takes none.
      assert.equal(bHit.allowed, true);
      assert.deepEqual(
        [b1, b2, b3, b4].map((x) => [x.rate.allowed, x.slot?.ok ?? null]),
        [
          [true, true],
          [true, true],
          [true, false],
          [true, false],
        ],
      );
      assert.deepEqual(
        [b1, b2, b3, b4].map((x) => x.rate.windows.map((w) => w.remaining)),
        [
          [4, 49],
          [2, 47],
          [1, 46],
          [0, 45],
        ],
      );
      // Alone, with a maximum of three, the lone slot finds the two taken by the admissions before it.
      assert.ok(bLone.ok);
      assert.equal(bLone.inUse, 3);
      for (const x of [a1, b1, b2]) if (x.slot?.ok) await l.releaseSlot(x === a1 ? a : b, x.slot.slotId);
      if (bLone.ok) await l.releaseSlot(b, bLone.slotId);
      assert.equal(await l.slotsInUse(a), 0);
      assert.equal(await l.slotsInUse(b), 0);
    });

    if (opts.multiNode)
      test('two nodes share counters and slots', async () => {
        if (!h.peer) throw new Error('a multi-node limiter handle needs its peer');
        const acct = `acc_${randomUUID()}`;
        const w = [{ windowSeconds: 60, limit: 3 }];
        await l.hit(acct, w);
        await h.peer.hit(acct, w);
        await l.hit(acct, w);
        assert.equal((await h.peer.hit(acct, w)).allowed, false);
        const s = await l.acquireSlot(acct, 1, 10_000);
        assert.ok(s.ok);
        assert.equal((await h.peer.acquireSlot(acct, 1, 10_000)).ok, false);
        await h.peer.releaseSlot(acct, s.slotId);
        assert.equal((await h.peer.acquireSlot(acct, 1, 10_000)).ok, true);
      });

    if (opts.multiNode)
      test("a crashed node's slot comes back to the other node when its lease ends", async () => {
        if (!h.peer) throw new Error('a multi-node limiter handle needs its peer');
        const acct = `acc_${randomUUID()}`;
        // The peer takes a slot with a short lease and then never renews or releases it, as a dead node would.
        assert.equal((await h.peer.acquireSlot(acct, 1, 250)).ok, true);
        assert.equal((await l.acquireSlot(acct, 1, 10_000)).ok, false);
        await sleep(350);
        const mine = await l.acquireSlot(acct, 1, 10_000);
        assert.equal(mine.ok, true);
        if (mine.ok) await l.releaseSlot(acct, mine.slotId);
      });
  });
}
