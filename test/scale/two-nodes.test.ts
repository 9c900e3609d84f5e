// Two Parla processes on one PostgreSQL and one Redis: rate limits, concurrency slots, credits,
// key revocation and usage hold across both; killing a node loses no committed usage and
// double-charges nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshPgSchema, REDIS_URL } from '../helpers/env.js';
import { cli, startNode, type NodeProcess } from '../helpers/node-process.js';

let schema: Awaited<ReturnType<typeof freshPgSchema>>;
let env: Record<string, string>;
let a: NodeProcess;
let b: NodeProcess;

before(async () => {
  schema = await freshPgSchema();
  // One worker per node (helpers' default), with room to queue the 30 concurrent requests of the credits test
  // (past the queue, requests get 503 before their credits are checked).
  env = { DATABASE_URL: schema.url, REDIS_URL, PARLA_QUEUE_MAX: '64' };
  [a, b] = await Promise.all([startNode(env), startNode(env)]);
});
after(async () => {
  await Promise.all([a?.kill(), b?.kill()]);
  await schema.drop();
});

const tts = (node: NodeProcess, key: string, text = 'Hello.') =>
  fetch(`${node.url}/api/v1/tts/generate`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ text, voice: 'Aria', model: 'aura-lite' }),
  });

test('rate limits are shared: 10 per minute across both nodes', async () => {
  const { key } = await cli(['accounts', 'create', '--name', 'rl', '--plan', 'free'], env);
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++)
    statuses.push((await fetch(`${(i % 2 ? b : a).url}/api/v1/usage`, { headers: { 'x-api-key': key.api_key } })).status);
  assert.equal(statuses.filter((s) => s === 200).length, 10);
  assert.equal(statuses.filter((s) => s === 429).length, 2);
});

test('a concurrency slot taken on one node is seen by the other', async () => {
  const { key } = await cli(['accounts', 'create', '--name', 'cc', '--plan', 'free'], env);
  const long = fetch(`${a.url}/api/v1/tts/stream`, {
    method: 'POST',
    headers: { 'x-api-key': key.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'This stream keeps its slot for a while. '.repeat(20), voice: 'Aria', model: 'aura-lite' }),
  });
  const first = await long;
  assert.equal(first.status, 200);
  const other = await fetch(`${b.url}/api/v1/usage`, { headers: { 'x-api-key': key.api_key } });
  assert.equal(other.status, 429);
  assert.equal(((await other.json()) as any).error.code, 'CONCURRENT_LIMIT');
  await first.arrayBuffer();
});

test('credits for exactly N requests: N+20 concurrent over both nodes give N successes and 402s', async () => {
  const N = 10;
  const { account, key } = await cli(['accounts', 'create', '--name', 'cr', '--plan', 'enterprise', '--credits', String(6 * N)], env);
  const results = await Promise.all(Array.from({ length: N + 20 }, (_, i) => tts(i % 2 ? b : a, key.api_key)));
  const statuses = results.map((r) => r.status);
  await Promise.all(results.map((r) => r.arrayBuffer()));
  assert.equal(statuses.filter((s) => s === 200).length, N, statuses.join(','));
  assert.equal(statuses.filter((s) => s === 402).length, 20);
  const c = new pg.Client({ connectionString: schema.url });
  await c.connect();
  const { rows } = await c.query(
    'SELECT COUNT(*)::int AS n, COALESCE(SUM(credits),0)::int AS credits FROM usage_ledger WHERE account_id = $1',
    [account.id],
  );
  const bal = await c.query('SELECT credits FROM accounts WHERE id = $1', [account.id]);
  await c.end();
  assert.deepEqual(rows[0], { n: N, credits: 6 * N });
  assert.equal(Number(bal.rows[0].credits), 0);
  // Both nodes report the same usage.
  const ua = (await (await fetch(`${a.url}/api/v1/usage`, { headers: { 'x-api-key': key.api_key } })).json()) as any;
  const ub = (await (await fetch(`${b.url}/api/v1/usage`, { headers: { 'x-api-key': key.api_key } })).json()) as any;
  assert.equal(ua.usage.requests_today, N);
  assert.deepEqual(ua.usage, ub.usage);
});

test('a key revoked through one node is refused by the other within one second', async () => {
  const { key } = await cli(['accounts', 'create', '--name', 'rv', '--plan', 'pro'], env);
  assert.equal((await fetch(`${b.url}/api/v1/usage`, { headers: { 'x-api-key': key.api_key } })).status, 200);
  await cli(['keys', 'revoke', key.id], env);
  await new Promise((r) => setTimeout(r, 1000));
  const res = await fetch(`${b.url}/api/v1/usage`, { headers: { 'x-api-key': key.api_key } });
  assert.equal(res.status, 401);
  assert.equal(((await res.json()) as any).error.code, 'AUTH_REVOKED_API_KEY');
});

test('killing a node mid-load loses no committed usage and double-charges nothing', async () => {
  const initial = 100_000;
  const { account, key } = await cli(['accounts', 'create', '--name', 'kill', '--plan', 'enterprise', '--credits', String(initial)], env);
  const victim = await startNode(env);
  const load = Array.from({ length: 16 }, (_, i) =>
    tts(i % 2 ? victim : a, key.api_key, 'A sentence for the load test.').then(
      (r) => r.status,
      () => 0,
    ),
  );
  await new Promise((r) => setTimeout(r, 400));
  await victim.kill('SIGKILL');
  const statuses = await Promise.all(load);
  const c = new pg.Client({ connectionString: schema.url });
  await c.connect();
  const ledger = await c.query(
    'SELECT COUNT(*)::int AS n, COALESCE(SUM(credits),0)::int AS credits FROM usage_ledger WHERE account_id = $1',
    [account.id],
  );
  const held = await c.query('SELECT COALESCE(SUM(credits),0)::int AS credits FROM credit_holds WHERE account_id = $1', [account.id]);
  const bal = await c.query('SELECT credits FROM accounts WHERE id = $1', [account.id]);
  await c.end();
  const ok = statuses.filter((s) => s === 200).length;
  assert.ok(ledger.rows[0].n >= ok, 'every success the client saw was recorded');
  // Money is conserved: balance + ledger + holds left by the dead node = what the account had.
  assert.equal(Number(bal.rows[0].credits) + ledger.rows[0].credits + held.rows[0].credits, initial);
  assert.equal(ledger.rows[0].credits, ledger.rows[0].n * 29, 'each recorded request charged once');
});
