// kill -9 a Parla process in the middle of a job (real `parla serve` processes, real recognition of a
// long recording): on SQLite the restarted node takes the job over, on PostgreSQL the other node
// does; either way the job completes once and the account is charged exactly once, with the dead
// run's held credits back in the balance.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import Database from 'better-sqlite3';
import { freshPgSchema, tempDir } from '../helpers/env.js';
import { cli, startNode, type NodeProcess } from '../helpers/node-process.js';
import { multipart } from '../helpers/multipart.js';
import { librivox, soxConcat } from '../helpers/speech.js';

// About 45 s of speech: the recognition takes several seconds, so a node can be killed in it.
const long = soxConcat(Array(6).fill(librivox()[0]!.file));
const INITIAL = 100_000;
// A short lease (a real operator setting) so the take-over comes within seconds.
const JOB_ENV = { PARLA_JOB_LEASE_SECONDS: '4', PARLA_FETCH_ALLOW_PRIVATE: 'true', PARLA_JOB_CONCURRENCY: '1' };

let source: http.Server;
let audioUrl: string;
before(async () => {
  source = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(readFileSync(long)));
  source.listen(0, '127.0.0.1');
  await new Promise((r) => source.once('listening', r));
  audioUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}/long.wav`;
});
after(() => source.close());

/** The job, or a throw that says what the node answered instead (kept for the failure message). */
const getJob = async (node: NodeProcess, key: string, id: string) => {
  const res = await fetch(`${node.url}/api/v1/stt/jobs/${id}`, { headers: { 'x-api-key': key } });
  const text = await res.text();
  const job = res.ok ? (JSON.parse(text) as any).job : undefined;
  if (!job) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
  return job;
};

async function until(read: () => Promise<any>, done: (job: any) => boolean, ms: number, what: string): Promise<any> {
  const started = Date.now();
  for (;;) {
    let last: unknown = null;
    const job = await read().catch((err: Error) => ((last = err.message), null));
    if (job && done(job)) return job;
    if (Date.now() - started > ms) assert.fail(`${what}: ${job ? JSON.stringify(job) : `no job (${String(last)})`}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Decoded and its credits held: the recognition is under way. */
const midRun = (j: any) => j.status === 'running' && j.progress >= 0.2;

test('SQLite: kill -9 the node mid-job; restarted, it takes the job over and bills it once', async () => {
  const tmp = tempDir();
  const env = { ...JOB_ENV, PARLA_DATA_DIR: tmp.dir };
  const { account, key } = await cli(['accounts', 'create', '--name', 'kill', '--plan', 'enterprise', '--credits', String(INITIAL)], env);
  let node = await startNode(env);
  try {
    const { body, contentType } = await multipart(readFileSync(long), {}, 'long.wav');
    const res = await fetch(`${node.url}/api/v1/stt/jobs`, {
      method: 'POST',
      headers: { 'x-api-key': key.api_key, 'content-type': contentType },
      body,
    });
    assert.equal(res.status, 202);
    const { job } = (await res.json()) as any;
    await until(() => getJob(node, key.api_key, job.id), midRun, 60_000, 'the job never got under way');
    const db = () => new Database(path.join(tmp.dir, 'parla.db'), { readonly: true });
    const held = db();
    const holds = held.prepare('SELECT id, credits FROM credit_holds WHERE account_id = ?').all(account.id) as Array<{
      id: string;
      credits: number;
    }>;
    held.close();
    assert.deepEqual(
      holds.map((h) => h.id),
      [`${job.id}:1`],
      "the run holds the audio's credits under its own name",
    );
    await node.kill('SIGKILL');

    node = await startNode(env);
    const done = await until(
      () => getJob(node, key.api_key, job.id),
      (j) => ['completed', 'failed', 'canceled'].includes(j.status),
      120_000,
      'the restarted node did not finish the job',
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.attempts, 2, 'run twice: once on the dead node, once after the restart');
    assert.match(done.result.text, /dashwood/i);
    assert.ok(done.credits_used > 0);
    const raw = db();
    const ledger = raw.prepare('SELECT request_id, credits FROM usage_ledger WHERE account_id = ?').all(account.id) as Array<{
      request_id: string;
      credits: number;
    }>;
    const left = raw.prepare('SELECT COUNT(*) AS n FROM credit_holds WHERE account_id = ?').get(account.id) as { n: number };
    const balance = (raw.prepare('SELECT credits FROM accounts WHERE id = ?').get(account.id) as { credits: number }).credits;
    raw.close();
    assert.deepEqual(ledger, [{ request_id: job.id, credits: done.credits_used }], 'one charge');
    assert.equal(left.n, 0, "the dead run's hold was released");
    assert.equal(balance, INITIAL - done.credits_used);
    const credits = (await (await fetch(`${node.url}/api/v1/user/credits`, { headers: { 'x-api-key': key.api_key } })).json()) as any;
    assert.equal(credits.credits, INITIAL - done.credits_used);
    // Deleted once the job ends: within a few seconds (the file goes after the job is marked
    // complete, and a loaded machine can put seconds between the two).
    const uploads = () => readdir(path.join(tmp.dir, 'jobs')).then((fs) => fs.filter((f) => f.startsWith('upload-')));
    for (let i = 0; i < 50 && (await uploads()).length > 0; i++) await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await uploads(), [], 'the upload is deleted once the job ends');
  } finally {
    await node.kill('SIGKILL');
    tmp.cleanup();
  }
});

test('PostgreSQL, two nodes: kill -9 the node running a job; the other takes it over and bills it once', async () => {
  const schema = await freshPgSchema();
  const env = { ...JOB_ENV, DATABASE_URL: schema.url };
  const nodes: NodeProcess[] = [];
  const sql = new pg.Client({ connectionString: schema.url });
  await sql.connect();
  try {
    // One after the other: two starts at once on a busy machine can miss the helper's 30 s.
    nodes.push(await startNode(env));
    nodes.push(await startNode(env));
    const { account, key } = await cli(
      ['accounts', 'create', '--name', 'kill2', '--plan', 'enterprise', '--credits', String(INITIAL)],
      env,
    );
    const res = await fetch(`${nodes[0]!.url}/api/v1/stt/jobs`, {
      method: 'POST',
      headers: { 'x-api-key': key.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: audioUrl }),
    });
    assert.equal(res.status, 202);
    const { job } = (await res.json()) as any;
    await until(() => getJob(nodes[0]!, key.api_key, job.id), midRun, 60_000, 'the job never got under way');
    // Whichever node claimed it: its worker id names its process.
    const { rows } = await sql.query<{ lease_owner: string }>('SELECT lease_owner FROM stt_jobs WHERE id = $1', [job.id]);
    const owner = nodes.findIndex((n) => rows[0]!.lease_owner.split(':')[1] === String(n.proc.pid));
    assert.ok(owner >= 0, `the job is leased by one of the nodes (${rows[0]!.lease_owner})`);
    const survivor = nodes[1 - owner]!;
    await nodes[owner]!.kill('SIGKILL');

    const done = await until(
      () => getJob(survivor, key.api_key, job.id),
      (j) => ['completed', 'failed', 'canceled'].includes(j.status),
      120_000,
      'the other node did not finish the job',
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.attempts, 2);
    assert.match(done.result.text, /dashwood/i);
    const ledger = await sql.query('SELECT request_id, credits FROM usage_ledger WHERE account_id = $1', [account.id]);
    const holds = await sql.query('SELECT COUNT(*)::int AS n FROM credit_holds WHERE account_id = $1', [account.id]);
    assert.deepEqual(
      ledger.rows.map((r) => ({ request_id: r.request_id, credits: Number(r.credits) })),
      [{ request_id: job.id, credits: done.credits_used }],
      'one charge',
    );
    assert.equal(holds.rows[0].n, 0, "the dead run's hold was released");
    const credits = (await (await fetch(`${survivor.url}/api/v1/user/credits`, { headers: { 'x-api-key': key.api_key } })).json()) as any;
    assert.equal(credits.credits, INITIAL - done.credits_used);
  } finally {
    await sql.end();
    // (The killed node is gone already: waiting for its exit again would never end.)
    await Promise.all(nodes.filter((n) => n.proc.exitCode === null && n.proc.signalCode === null).map((n) => n.kill('SIGKILL')));
    await schema.drop();
  }
});
