// Issue 30, "Fairness as a tested property": while one account attacks a node with the worst inputs
// of the issue at once (silent live sockets, garbage on every socket, drip URL jobs, jobs whose
// webhook receiver stalls, maximal uploads on a 0-credit key), a second account's ordinary requests
// (a short TTS, a short transcription, a live stream, a job with a webhook) stay within 3x their
// time on the idle node, /health answers within 100 ms, nothing crashes, memory comes back within
// 20% of its level before and the ledger equals what was charged. Idle and loaded rounds alternate
// in one run (test/fairness/scenario.ts), so the machine's own load weighs on both; the figures of
// longer runs and of two nodes are in docs/benchmarks.md ("Fairness"), from bench/fairness.ts.
// Three cycles of a shorter attack than the benchmark's (4 s run-in, 9 jobs a phase, drip sources
// cut after 4 s: test/fairness/env.ts), every kind of it kept: about 2 minutes on a quiet machine.
// Every bound is an ordinary test (decision #106): the file is a measuring one
// (scripts/lib/test-schedule.mjs), so the files beside it run below its priority (decision #103),
// and the attacker runs below the node's (scenario.ts), as clients on other machines would. Each
// round times several of each short request (harness.ts REPEATS) and the bound is on the median of
// all of a side's samples: with one sample a round, the short TTS (20-50 ms) swung between 0.5x
// and 2.7x from run to run on one scheduling hiccup (docs/benchmarks.md "Fairness").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { tempDir } from '../helpers/env.js';
import { cli, startNode, type NodeProcess } from '../helpers/node-process.js';
import { fairnessEnv } from './env.js';
import { KINDS } from './harness.js';
import { formatReport, runFairness, type Account, type FairnessReport } from './scenario.js';

const tmp = tempDir();
const env = fairnessEnv({ PARLA_DATA_DIR: tmp.dir });
let node: NodeProcess;
let report: FairnessReport;

async function account(name: string, credits: number): Promise<Account> {
  const { account, key } = await cli(['accounts', 'create', '--name', name, '--plan', 'pro', '--credits', String(credits)], env);
  return { id: account.id, key: key.api_key, initial: credits };
}

function ledgerRows(): Promise<Map<string, number>> {
  const db = new Database(path.join(tmp.dir, 'parla.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT account_id AS id, SUM(credits) AS c FROM usage_ledger GROUP BY account_id').all() as Array<{
      id: string;
      c: number;
    }>;
    return Promise.resolve(new Map(rows.map((x) => [x.id, Number(x.c)])));
  } finally {
    db.close();
  }
}

before(async () => {
  const accounts = { a: await account('attacker', 2000), a0: await account('attacker-0', 0), b: await account('victim', 100_000) };
  node = await startNode(env);
  report = await runFairness([node], accounts, ledgerRows, { rounds: 3, runInMs: 4000, maxJobs: 9 });
  // The whole report, whatever the assertions below say: what failed is then readable in the log.
  console.log(formatReport('fairness test, one node', report));
});

after(async () => {
  await node?.kill();
  tmp.cleanup();
});

test('the node survives the attack and the victim gets every answer', () => {
  assert.deepEqual(report.alive, [true]);
  const errors = [...report.idle, ...report.loaded].flatMap((r) => r.errors);
  assert.deepEqual(errors, []);
});

test("the victim's requests under attack take at most 3x their idle time (medians, per kind)", () => {
  for (const k of KINDS) {
    const ratio = report.loadedMedian[k] / report.idleMedian[k];
    assert.ok(
      ratio <= 3,
      `${k}: loaded median ${report.loadedMedian[k].toFixed(0)} ms is ${ratio.toFixed(2)}x the idle median ${report.idleMedian[k].toFixed(0)} ms`,
    );
  }
});

test('/health answers every probe under attack', () => {
  assert.equal(report.health.failures, 0);
});

test('/health answers every probe within 100 ms under attack', () => {
  assert.ok(
    report.health.loadedWorst <= 100,
    `worst /health under attack ${report.health.loadedWorst.toFixed(0)} ms (p99 ${report.health.loadedP99.toFixed(0)} ms; idle worst ${report.health.idleWorst.toFixed(0)} ms)`,
  );
});

// The service's own process; the decoder processes end when idle (docs/benchmarks.md "Hostile
// decoding"), the C heap's free memory is given back every 10 s (decision #79), and the decoders
// the attack made the node load (the accurate profile, for whisper-1) are unloaded at the model
// TTL (15 s here, test/fairness/env.ts). Before that TTL the node stayed at +19% to +22%: the
// attack's decoders, not a leak.
test('memory comes back within 20% of its level before the attack, within 30 s', () => {
  const [before, after] = [report.rss.before[0]!, report.rss.after[0]!];
  assert.ok(
    after <= before * 1.2,
    `RSS ${after.toFixed(0)} MB ${(report.rss.returnedMs / 1000).toFixed(0)} s after, ${before.toFixed(0)} MB before (peak ${report.rss.peak[0]!.toFixed(0)} MB)`,
  );
});

test('the ledger equals what the answers reported and the balances spent, per account', () => {
  for (const l of report.ledger) {
    assert.equal(l.ledger, l.reported, `${l.account}: ledger ${l.ledger}, reported ${l.reported}`);
    assert.equal(l.ledger, l.spent, `${l.account}: ledger ${l.ledger}, balance spent ${l.spent}`);
  }
  assert.equal(report.ledger.find((l) => l.account.startsWith('A0'))!.ledger, 0);
});
