// The model lifecycle's rules on models whose loading the test controls (each load resolves when
// the test says so, and load/unload are counted): sharing, waiters during a load, the bounded
// wait, idle unload after the TTL, least-recently-used eviction under the memory budget, a model
// larger than the budget, failed loads, preload. The sherpa-onnx engines on it: sherpa-stt.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelLifecycle, type ModelSpec } from '../../src/engines/model-lifecycle.js';
import { EngineOverloadedError } from '../../src/domain/overload.js';

interface Loaded {
  name: string;
  n: number;
}

/** A model whose loads wait for finishLoad() (or resolve at once with auto), counting loads and unloads. */
function model(name: string, sizeMB: number, opts: { auto?: boolean; fail?: boolean } = {}) {
  const gates: Array<() => void> = [];
  const counts = { loads: 0, unloads: 0 };
  const spec: ModelSpec<Loaded> = {
    name,
    sizeMB,
    load: async () => {
      counts.loads++;
      if (!opts.auto) await new Promise<void>((r) => gates.push(r));
      if (opts.fail) throw new Error(`${name} is broken`);
      return { name, n: counts.loads };
    },
    unload: async () => {
      counts.unloads++;
    },
  };
  const finishLoad = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { spec, counts, finishLoad };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function lifecycle(opts: Partial<{ ttlMs: number; memoryBudgetMB: number; loadWaitMs: number }> = {}) {
  return new ModelLifecycle({
    ttlMs: opts.ttlMs ?? 60_000,
    memoryBudgetMB: opts.memoryBudgetMB ?? 1000,
    loadWaitMs: opts.loadWaitMs ?? 10_000,
  });
}

describe('model lifecycle', () => {
  test('loads on first use only; requests arriving during the load wait for it and share the model', async () => {
    const lc = lifecycle();
    const a = model('a', 10);
    lc.register(a.spec);
    assert.deepEqual(lc.resident(), []);
    const first = lc.acquire<Loaded>('a');
    const second = lc.acquire<Loaded>('a');
    await sleep(5);
    assert.deepEqual(
      lc.resident().map((r) => [r.name, r.state]),
      [['a', 'loading']],
    );
    await a.finishLoad();
    const [l1, l2] = await Promise.all([first, second]);
    assert.equal(a.counts.loads, 1);
    assert.equal(l1.model, l2.model);
    assert.equal(lc.resident()[0]!.users, 2);
    l1.release();
    l1.release(); // twice is once
    assert.equal(lc.resident()[0]!.users, 1);
    l2.release();
    const l3 = await lc.acquire<Loaded>('a');
    assert.equal(l3.model, l1.model);
    assert.equal(a.counts.loads, 1);
    l3.release();
    await lc.close();
    assert.equal(a.counts.unloads, 1);
  });

  test('loading one model does not hold up requests for a loaded one', async () => {
    const lc = lifecycle();
    const fast = model('fast', 10, { auto: true });
    const slow = model('slow', 10);
    lc.register(fast.spec);
    lc.register(slow.spec);
    (await lc.acquire('fast')).release();
    const slowLease = lc.acquire('slow');
    const lease = await lc.acquire<Loaded>('fast');
    assert.equal(lease.model.name, 'fast');
    lease.release();
    await slow.finishLoad();
    (await slowLease).release();
    await lc.close();
  });

  test('the wait for a load is bounded: SERVICE_OVERLOADED, and the load still completes for later requests', async () => {
    const lc = lifecycle({ loadWaitMs: 50 });
    const a = model('a', 10);
    lc.register(a.spec);
    await assert.rejects(lc.acquire('a'), (err: unknown) => err instanceof EngineOverloadedError && /loading/.test(err.message));
    await a.finishLoad();
    const lease = await lc.acquire<Loaded>('a');
    assert.equal(lease.model.name, 'a');
    assert.equal(a.counts.loads, 1);
    lease.release();
    await lc.close();
  });

  test('an aborted request stops waiting', async () => {
    const lc = lifecycle();
    const a = model('a', 10);
    lc.register(a.spec);
    const ac = new AbortController();
    const waiting = lc.acquire('a', ac.signal);
    ac.abort(new Error('client gone'));
    await assert.rejects(waiting, /client gone/);
    await a.finishLoad();
    await lc.close();
  });

  test('unloads after the TTL idle, not while in use; the next use loads it again', async () => {
    const lc = lifecycle({ ttlMs: 80 });
    const a = model('a', 10, { auto: true });
    lc.register(a.spec);
    const lease = await lc.acquire('a');
    await sleep(200);
    assert.equal(a.counts.unloads, 0, 'in use: kept');
    lease.release();
    await sleep(30);
    assert.equal(lc.resident().length, 1, 'idle, but not yet for the TTL');
    await sleep(150);
    assert.equal(a.counts.unloads, 1);
    assert.deepEqual(lc.resident(), []);
    (await lc.acquire('a')).release();
    assert.equal(a.counts.loads, 2);
    assert.equal(lc.loadCount('a'), 2);
    await lc.close();
  });

  test('over the memory budget the least recently used idle model is unloaded first', async () => {
    const lc = lifecycle({ memoryBudgetMB: 25 });
    const [a, b, c] = [model('a', 10, { auto: true }), model('b', 10, { auto: true }), model('c', 10, { auto: true })];
    for (const m of [a, b, c]) lc.register(m.spec);
    (await lc.acquire('a')).release();
    await sleep(2);
    (await lc.acquire('b')).release();
    await sleep(2);
    (await lc.acquire('a')).release(); // a is now more recent than b
    (await lc.acquire('c')).release();
    assert.equal(b.counts.unloads, 1, 'b, the least recently used, went');
    assert.equal(a.counts.unloads, 0);
    assert.deepEqual(
      lc
        .resident()
        .map((r) => r.name)
        .sort(),
      ['a', 'c'],
    );
    await lc.close();
  });

  test('a model in use is never evicted: the next load waits for it to be released (bounded)', async () => {
    const lc = lifecycle({ memoryBudgetMB: 15, loadWaitMs: 2000 });
    const [a, b] = [model('a', 10, { auto: true }), model('b', 10, { auto: true })];
    lc.register(a.spec);
    lc.register(b.spec);
    const held = await lc.acquire('a');
    const waiting = lc.acquire<Loaded>('b');
    await sleep(50);
    assert.equal(b.counts.loads, 0);
    held.release();
    const lb = await waiting;
    assert.equal(lb.model.name, 'b');
    assert.equal(a.counts.unloads, 1);
    lb.release();

    const short = lifecycle({ memoryBudgetMB: 15, loadWaitMs: 60 });
    const [c, d] = [model('c', 10, { auto: true }), model('d', 10, { auto: true })];
    short.register(c.spec);
    short.register(d.spec);
    const heldC = await short.acquire('c');
    await assert.rejects(short.acquire('d'), (err: unknown) => err instanceof EngineOverloadedError);
    heldC.release();
    await Promise.all([lc.close(), short.close()]);
  });

  test('a model larger than the whole budget still loads when nothing else is resident', async () => {
    const lc = lifecycle({ memoryBudgetMB: 1 });
    const [a, b] = [model('a', 50, { auto: true }), model('b', 50, { auto: true })];
    lc.register(a.spec);
    lc.register(b.spec);
    (await lc.acquire('a')).release();
    (await lc.acquire('b')).release();
    assert.equal(a.counts.unloads, 1);
    assert.deepEqual(
      lc.resident().map((r) => r.name),
      ['b'],
    );
    await lc.close();
  });

  test('a failed load reaches every waiter; the next request tries again', async () => {
    const lc = lifecycle();
    const a = model('a', 10, { fail: true });
    lc.register(a.spec);
    const both = [lc.acquire('a'), lc.acquire('a')];
    await a.finishLoad();
    for (const p of both) await assert.rejects(p, /a is broken/);
    assert.deepEqual(lc.resident(), []);
    const again = lc.acquire('a');
    await a.finishLoad();
    await assert.rejects(again, /a is broken/);
    assert.equal(a.counts.loads, 2);
    await lc.close();
  });

  test('preload loads the named models now and skips unknown names', async () => {
    const lc = lifecycle();
    const a = model('a', 10, { auto: true });
    lc.register(a.spec);
    await lc.preload(['a', 'not-installed']);
    assert.deepEqual(
      lc.resident().map((r) => [r.name, r.state, r.users]),
      [['a', 'loaded', 0]],
    );
    await lc.close();
    await assert.rejects(lc.acquire('a'), (err: unknown) => err instanceof EngineOverloadedError);
  });
});
