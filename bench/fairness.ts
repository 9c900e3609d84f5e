// Issue 30, fairness between accounts: the figures behind test/fairness/fairness.test.ts. One
// `parla serve` on SQLite (and, with --cluster, two on PostgreSQL + Redis) under the attack of
// test/fairness/harness.ts; prints the victim's times loaded/idle, /health, RSS before/peak/after,
// the attacker's answers by status and the ledger check as Markdown (docs/benchmarks.md "Fairness").
//   node --import tsx bench/fairness.ts [--cluster] [--rounds=N]
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { freshPgSchema, REDIS_URL, tempDir } from '../test/helpers/env.js';
import { cli, startNode, type NodeProcess } from '../test/helpers/node-process.js';
import { fairnessEnv } from '../test/fairness/env.js';
import { formatReport, runFairness, type Account } from '../test/fairness/scenario.js';
import type { AttackPart } from '../test/fairness/harness.js';

const cluster = process.argv.includes('--cluster');
const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 3);
// --only=uploads,jobs: run only these parts of the attack (to find which one the victim waits for).
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',') as AttackPart[] | undefined;

async function accounts(env: Record<string, string>) {
  const make = async (name: string, credits: number): Promise<Account> => {
    const { account, key } = await cli(['accounts', 'create', '--name', name, '--plan', 'pro', '--credits', String(credits)], env);
    return { id: account.id, key: key.api_key, initial: credits };
  };
  return { a: await make('attacker', 2000), a0: await make('attacker-0', 0), b: await make('victim', 100_000) };
}

const tmp = tempDir();
const schema = cluster ? await freshPgSchema() : null;
const env = fairnessEnv(schema ? { DATABASE_URL: schema.url, REDIS_URL } : { PARLA_DATA_DIR: tmp.dir });
const accts = await accounts(env);
const nodes: NodeProcess[] = await Promise.all(Array.from({ length: cluster ? 2 : 1 }, () => startNode(env)));
const ledger = async () => {
  if (schema) {
    const c = new pg.Client({ connectionString: schema.url });
    await c.connect();
    const { rows } = await c.query('SELECT account_id AS id, SUM(credits)::int AS c FROM usage_ledger GROUP BY account_id');
    await c.end();
    return new Map(rows.map((x: any) => [x.id as string, Number(x.c)]));
  }
  const db = new Database(path.join(tmp.dir, 'parla.db'), { readonly: true });
  const rows = db.prepare('SELECT account_id AS id, SUM(credits) AS c FROM usage_ledger GROUP BY account_id').all() as Array<{
    id: string;
    c: number;
  }>;
  db.close();
  return new Map(rows.map((x) => [x.id, Number(x.c)]));
};
try {
  const r = await runFairness(nodes, accts, ledger, { rounds, ...(only ? { parts: only } : {}), log: (s) => console.error(s) });
  console.log(formatReport(cluster ? 'two nodes, PostgreSQL + Redis' : 'one node, SQLite', r));
} finally {
  await Promise.all(nodes.map((n) => n.kill()));
  await schema?.drop();
  tmp.cleanup();
}
