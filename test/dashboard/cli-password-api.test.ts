// Dashboard passwords from the operator CLI (`--password-stdin`), then signing in with them, and
// scrypt hashes that carry their own parameters.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/env.js';
import { hashPassword, verifyPassword } from '../../src/dashboard/password.js';
import { expectError, signIn } from './helpers.js';
import { parlaArgs } from '../helpers/parla-command.js';

const tmp = tempDir();
let t: TestApp;
before(async () => {
  // The app and the CLI share one SQLite file, as a running server and an operator do.
  t = await createTestApp({ PARLA_DATA_DIR: tmp.dir });
});
after(async () => {
  await t.close();
  tmp.cleanup();
});

function parla(args: string[], input = '') {
  const res = spawnSync(process.execPath, parlaArgs(args), {
    encoding: 'utf8',
    input,
    env: { ...process.env, PARLA_DATA_DIR: tmp.dir, LOG_LEVEL: 'silent' },
  });
  return { code: res.status, out: res.stdout, err: res.stderr, json: () => JSON.parse(res.stdout) };
}

test('accounts create --email --password-stdin, set-password, and signing in with them', async () => {
  const created = parla(
    ['accounts', 'create', '--name', 'Acme', '--plan', 'basic', '--email', 'Owner@Example.com', '--password-stdin', '--json'],
    'first password 1\n',
  );
  assert.equal(created.code, 0, created.err);
  const { account, key } = created.json();
  assert.equal(account.email, 'owner@example.com');
  assert.match(key.api_key, /^svc_live_/);
  const stored = await t.services.store.findAccountByEmail('owner@example.com');
  assert.match(stored!.passwordHash!, /^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.equal(
    (await signIn(t, 'owner@example.com', 'first password 1')).statusCode,
    200,
    'the trailing newline is not part of the password',
  );
  const session = await signIn(t, 'OWNER@example.com', 'first password 1');
  const cookie = session.cookies[0]!.value;

  const changed = parla(['accounts', 'set-password', account.id, '--password-stdin', '--json'], 'second password 2');
  assert.equal(changed.code, 0, changed.err);
  assert.deepEqual(changed.json(), { id: account.id, email: 'owner@example.com', sessions_ended: 2 });
  expectError(
    await t.app.inject({ method: 'GET', url: '/dashboard/api/session', cookies: { parla_session: cookie } }),
    401,
    'SESSION_REQUIRED',
  );
  expectError(await signIn(t, 'owner@example.com', 'first password 1'), 401, 'SIGN_IN_FAILED');
  assert.equal((await signIn(t, 'owner@example.com', 'second password 2')).statusCode, 200);

  const human = parla(['accounts', 'set-password', account.id, '--email', 'boss@example.com', '--password-stdin'], 'third password 3\n');
  assert.equal(human.code, 0, human.err);
  assert.match(human.out, /dashboard password set for acc_\w+ \(boss@example\.com\); 1 session signed out/);
  assert.equal((await signIn(t, 'boss@example.com', 'third password 3')).statusCode, 200);
  expectError(await signIn(t, 'owner@example.com', 'third password 3'), 401, 'SIGN_IN_FAILED');
});

test('usage errors exit 2 and change nothing', () => {
  const before = parla(['accounts', 'list', '--json']).json().length;
  const cases: Array<[string[], string, RegExp]> = [
    [
      ['accounts', 'create', '--name', 'A', '--plan', 'free', '--email', 'a@example.com', '--password-stdin'],
      'short\n',
      /at least 10 characters/,
    ],
    [['accounts', 'create', '--name', 'A', '--plan', 'free', '--password-stdin'], 'long enough password', /needs --email/],
    [
      ['accounts', 'create', '--name', 'A', '--plan', 'free', '--email', 'not-an-email', '--password-stdin'],
      'long enough password',
      /--email must be an email/,
    ],
    [
      ['accounts', 'create', '--name', 'A', '--plan', 'free', '--email', 'BOSS@example.com', '--password-stdin'],
      'long enough password',
      /already belongs to account/,
    ],
    [['accounts', 'create', '--name', 'A', '--plan', 'free', '--password', 'on-the-command-line'], '', /Unknown option '--password'/],
  ];
  for (const [args, input, message] of cases) {
    const res = parla(args, input);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.err}`);
    assert.match(res.err, message);
  }
  assert.equal(parla(['accounts', 'list', '--json']).json().length, before, 'no account was created');

  const bare = parla(['accounts', 'create', '--name', 'No mail', '--plan', 'free', '--no-key', '--json']).json();
  const noEmail = parla(['accounts', 'set-password', bare.id, '--password-stdin'], 'long enough password');
  assert.equal(noEmail.code, 2);
  assert.match(noEmail.err, /has no email yet/);
  assert.equal(parla(['accounts', 'set-password', bare.id, '--email', 'x@example.com'], '').code, 2, '--password-stdin is required');
  assert.equal(
    parla(['accounts', 'set-password', 'acc_nope', '--email', 'x@example.com', '--password-stdin'], 'long enough password').code,
    2,
  );
  const taken = parla(['accounts', 'set-password', bare.id, '--email', 'boss@example.com', '--password-stdin'], 'long enough password');
  assert.equal(taken.code, 2);
  assert.match(taken.err, /already belongs/);
});

test('scrypt hashes: salted, self-describing, verified in constant time, malformed ones never match', async () => {
  const a = await hashPassword('the same password');
  const b = await hashPassword('the same password');
  assert.notEqual(a, b, 'a fresh salt each time');
  assert.equal(await verifyPassword('the same password', a), true);
  assert.equal(await verifyPassword('the same password ', a), false);
  assert.equal(
    await verifyPassword('Ünïcödé pässwörd'.normalize('NFD'), await hashPassword('Ünïcödé pässwörd'.normalize('NFC'))),
    true,
    'Unicode-normalized',
  );
  // Parameters come from the string: a cheaper hash made elsewhere still verifies.
  const [, , , , salt] = a.split('$');
  const { scryptSync } = await import('node:crypto');
  const cheap = `scrypt$1024$8$1$${salt}$${scryptSync('pw', Buffer.from(salt!, 'base64url'), 32, { N: 1024, r: 8, p: 1 }).toString('base64url')}`;
  assert.equal(await verifyPassword('pw', cheap), true);
  for (const bad of [
    '',
    'scrypt$',
    'bcrypt$1$2$3$4$5',
    'scrypt$1000$8$1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAA',
    `scrypt$${2 ** 24}$8$1$${salt}$AAAAAAAAAAAAAAAAAAAAAAAAAAA`,
  ]) {
    assert.equal(await verifyPassword('pw', bad), false, bad);
  }
});
