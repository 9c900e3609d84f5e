// The operator CLI as an operator uses it: every command, --json, exit code 2 on bad arguments.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { tempDir } from '../helpers/env.js';
import { parlaArgs } from '../helpers/parla-command.js';

const tmp = tempDir();
after(() => tmp.cleanup());

function parla(...args: string[]) {
  const res = spawnSync(process.execPath, parlaArgs(args), {
    encoding: 'utf8',
    env: { ...process.env, PARLA_DATA_DIR: tmp.dir, LOG_LEVEL: 'silent' },
  });
  return { code: res.status, out: res.stdout, err: res.stderr, json: () => JSON.parse(res.stdout) };
}

test('accounts, keys and credits from the command line', () => {
  const created = parla('accounts', 'create', '--name', 'Acme', '--plan', 'basic', '--credits', '500', '--json');
  assert.equal(created.code, 0, created.err);
  const { account, key } = created.json();
  assert.equal(account.plan, 'basic');
  assert.equal(account.credits, 500);
  assert.match(key.api_key, /^svc_live_[A-Za-z0-9]{40}$/);

  const human = parla('accounts', 'show', account.id);
  assert.equal(human.code, 0);
  assert.match(human.out, /Acme/);
  assert.equal(parla('accounts', 'list', '--json').json().length, 1);

  const k = parla(
    'keys',
    'create',
    '--account',
    account.id,
    '--name',
    'ci',
    '--test',
    '--expires-at',
    '2099-01-01T00:00:00Z',
    '--json',
  ).json();
  assert.match(k.api_key, /^svc_test_/);
  assert.equal(k.expires_at, '2099-01-01T00:00:00.000Z');
  const past = parla('keys', 'create', '--account', account.id, '--name', 'old', '--expires-at', '2020-01-01T00:00:00Z');
  assert.equal(past.code, 2, past.err);
  assert.match(past.err, /^parla: --expires-at 2020-01-01T00:00:00.000Z is in the past/);
  const keys = parla('keys', 'list', '--account', account.id, '--json').json();
  assert.equal(keys.length, 2);
  assert.ok(keys.every((row: any) => !('api_key' in row) && row.prefix.length === 13));

  assert.equal(parla('keys', 'disable', k.id, '--json').json().state, 'disabled');
  assert.equal(parla('keys', 'enable', k.id, '--json').json().state, 'active');
  assert.equal(parla('keys', 'revoke', k.id).code, 0);
  const again = parla('keys', 'enable', k.id);
  assert.equal(again.code, 2);
  assert.match(again.err, /final/);

  assert.equal(parla('credits', 'add', '--account', account.id, '--amount', '250', '--json').json().balance, 750);
  assert.equal(parla('credits', 'add', '--account', account.id, '--amount', '7', '--test', '--json').json().mode, 'test');

  const feats = parla('accounts', 'features', account.id, '--disable', 'stt_realtime', '--json').json();
  assert.equal(feats.features.stt_realtime, false);
  assert.equal(feats.features.tts, true);
  assert.equal(parla('accounts', 'plan', account.id, 'pro', '--json').json().plan, 'pro');

  // Zero retention (docs/jobs.md): off by default, on and off again, and it keeps the features.
  assert.equal(parla('accounts', 'zero-retention', account.id, '--json').json().zero_retention, false);
  assert.equal(parla('accounts', 'zero-retention', account.id, 'on', '--json').json().zero_retention, true);
  const shown = parla('accounts', 'show', account.id, '--json').json();
  assert.equal(shown.zero_retention, true);
  assert.equal(shown.features.stt_realtime, false, 'the feature switch survived');
  assert.equal(parla('accounts', 'features', account.id, '--enable', 'stt_realtime', '--json').json().features.stt_realtime, true);
  assert.equal(parla('accounts', 'show', account.id, '--json').json().zero_retention, true, 'a feature change keeps the flag');
  assert.equal(parla('accounts', 'zero-retention', account.id, 'off').out.trim(), 'zero_retention: off');
  assert.equal(parla('accounts', 'zero-retention', account.id, 'maybe').code, 2);

  const secret = parla('accounts', 'webhook-secret', account.id);
  assert.equal(secret.code, 0, secret.err);
  assert.match(secret.out.trim(), /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.equal(parla('accounts', 'webhook-secret', account.id, '--json').json().webhook_secret, secret.out.trim(), 'shown again unchanged');
  const rotated = parla('accounts', 'webhook-secret', account.id, '--rotate', '--json').json();
  assert.equal(rotated.rotated, true);
  assert.notEqual(rotated.webhook_secret, secret.out.trim());
  assert.equal(parla('accounts', 'webhook-secret', account.id).out.trim(), rotated.webhook_secret);
  assert.equal(parla('accounts', 'webhook-secret', 'acc_missing').code, 2);
});

test('bad arguments: a clear message and exit code 2', () => {
  for (const args of [
    ['accounts', 'create', '--name', 'X', '--plan', 'gold'],
    ['accounts', 'create', '--plan', 'free'],
    ['accounts', 'create', '--name', 'X', '--plan', 'free', '--credits', 'lots'],
    ['keys', 'create', '--account', 'acc_x'],
    ['keys', 'revoke'],
    ['credits', 'add', '--account', 'acc_missing', '--amount', '5'],
    ['accounts', 'features', 'acc_x', '--disable', 'teleport'],
    ['frobnicate'],
    ['accounts', 'create', '--name', 'X', '--plan', 'free', '--bogus'],
  ]) {
    const r = parla(...args);
    assert.equal(r.code, 2, `${args.join(' ')} -> ${r.code} ${r.err}`);
    assert.match(r.err, /^parla: \S/);
  }
});

test('parla help says where listen connects and how to trust a self-signed certificate', () => {
  const help = parla('help');
  assert.equal(help.code, 0);
  for (const needle of ['--realtime-url', 'PARLA_REALTIME_URL', '/api/v1/stt/realtime/info', '--ca FILE', 'data/tls/realtime-cert.pem'])
    assert.ok(help.out.includes(needle), needle);
});
