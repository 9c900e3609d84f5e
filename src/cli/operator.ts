// Operator commands: accounts, keys, credits. They open the store directly (SQLite in WAL mode or
// PostgreSQL), so they work while the server runs; nodes see changes within a second.

import type { Config } from '../config.js';
import { openStore } from '../storage/open-store.js';
import type { Store } from '../storage/store.js';
import { createAccountWithKey, createApiKey } from '../accounts/admin.js';
import { effectiveKeyState } from '../accounts/api-keys.js';
import { FEATURES, PLANS, type Account, type Feature, type KeyMode } from '../domain/accounts.js';
import { optionalInt, oneOf, output, parse, requireString, UsageError } from './args.js';
import { hashPassword } from '../dashboard/password.js';
import { readPasswordFromStdin, validEmail } from './password-input.js';
import { newWebhookSecret } from '../jobs/webhook-signature.js';

async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

function accountJson(a: Account) {
  return {
    id: a.id,
    name: a.name,
    plan: a.plan,
    email: a.email,
    credits: a.credits,
    test_credits: a.testCredits,
    features: a.features,
    zero_retention: a.zeroRetention,
    created_at: a.createdAt.toISOString(),
  };
}

function accountText(a: Account): string {
  const off = FEATURES.filter((f) => !a.features[f]);
  return `${a.id}  ${a.name}  plan=${a.plan}  credits=${a.credits}  test_credits=${a.testCredits}${off.length ? `  disabled=${off.join(',')}` : ''}`;
}

async function getAccountOrFail(store: Store, id: string): Promise<Account> {
  const a = await store.getAccount(id);
  if (!a) throw new UsageError(`no account ${id}`);
  return a;
}

/** Emails sign in to the dashboard, so one email belongs to one account. */
async function requireFreeEmail(store: Store, email: string, accountId: string | null): Promise<void> {
  const owner = await store.findAccountByEmail(email);
  if (owner && owner.id !== accountId) throw new UsageError(`the email ${email} already belongs to account ${owner.id}`);
}

/** --email and --password-stdin of `accounts create`: validated before anything is written. */
async function dashboardLogin(values: Record<string, unknown>): Promise<{ email: string | null; passwordHash: string | null }> {
  const email = typeof values.email === 'string' ? validEmail(values.email) : null;
  if (!values['password-stdin']) return { email, passwordHash: null };
  if (email === null) throw new UsageError('--password-stdin needs --email (the dashboard sign-in name)');
  return { email, passwordHash: await hashPassword(await readPasswordFromStdin()) };
}

export async function accountsCommand(config: Config, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parse(
        rest,
        {
          name: { type: 'string' },
          plan: { type: 'string' },
          credits: { type: 'string' },
          'test-credits': { type: 'string' },
          'key-name': { type: 'string' },
          'no-key': { type: 'boolean' },
          email: { type: 'string' },
          'password-stdin': { type: 'boolean' },
        },
        false,
      );
      const name = requireString(values, 'name');
      const plan = oneOf(requireString(values, 'plan'), PLANS, '--plan');
      const credits = optionalInt(values, 'credits', { min: 0 });
      const testCredits = optionalInt(values, 'test-credits', { min: 0 });
      const login = await dashboardLogin(values);
      return withStore(config, async (store) => {
        if (login.email) await requireFreeEmail(store, login.email, null);
        if (values['no-key']) {
          const account = await store.createAccount({
            name,
            plan,
            credits: credits ?? config.product.newAccountCredits.live,
            testCredits: testCredits ?? config.product.newAccountCredits.test,
            ...login,
          });
          output(!!values.json, accountJson(account), () => `created account ${accountText(account)}`);
          return 0;
        }
        const { account, key, rawKey } = await createAccountWithKey(store, config, {
          name,
          plan,
          keyName: typeof values['key-name'] === 'string' ? values['key-name'] : 'default',
          ...(credits === undefined ? {} : { credits }),
          ...(testCredits === undefined ? {} : { testCredits }),
          ...login,
        });
        output(
          !!values.json,
          { account: accountJson(account), key: { id: key.id, api_key: rawKey } },
          () => `created account ${accountText(account)}\nAPI key (shown once): ${rawKey}`,
        );
        return 0;
      });
    }
    case 'list': {
      const { values } = parse(rest, {}, false);
      return withStore(config, async (store) => {
        const all = await store.listAccounts();
        output(!!values.json, all.map(accountJson), () => (all.length ? all.map(accountText).join('\n') : 'no accounts'));
        return 0;
      });
    }
    case 'show': {
      const { values, positionals } = parse(rest, {});
      const id = positionals[0];
      if (!id) throw new UsageError('usage: parla accounts show ACCOUNT_ID');
      return withStore(config, async (store) => {
        const a = await getAccountOrFail(store, id);
        output(!!values.json, accountJson(a), () => accountText(a));
        return 0;
      });
    }
    case 'features': {
      const { values, positionals } = parse(rest, {
        enable: { type: 'string', multiple: true },
        disable: { type: 'string', multiple: true },
      });
      const id = positionals[0];
      if (!id) throw new UsageError('usage: parla accounts features ACCOUNT_ID --enable|--disable FEATURE');
      const enable = ((values.enable as string[] | undefined) ?? []).map((f) => oneOf(f, FEATURES, 'feature'));
      const disable = ((values.disable as string[] | undefined) ?? []).map((f) => oneOf(f, FEATURES, 'feature'));
      return withStore(config, async (store) => {
        await getAccountOrFail(store, id);
        for (const f of enable) await store.setFeature(id, f as Feature, true);
        for (const f of disable) await store.setFeature(id, f as Feature, false);
        const a = await getAccountOrFail(store, id);
        output(!!values.json, { id: a.id, features: a.features }, () =>
          FEATURES.map((f) => `${f}: ${a.features[f] ? 'on' : 'off'}`).join('\n'),
        );
        return 0;
      });
    }
    case 'plan': {
      const { values, positionals } = parse(rest, {});
      const [id, planArg] = positionals;
      if (!id || !planArg) throw new UsageError('usage: parla accounts plan ACCOUNT_ID free|basic|pro|enterprise');
      const plan = oneOf(planArg, PLANS, 'plan');
      return withStore(config, async (store) => {
        await getAccountOrFail(store, id);
        await store.setPlan(id, plan);
        const a = await getAccountOrFail(store, id);
        output(!!values.json, accountJson(a), () => accountText(a));
        return 0;
      });
    }
    case 'set-password': {
      const { values, positionals } = parse(rest, { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } });
      const id = positionals[0];
      if (!id || !values['password-stdin'])
        throw new UsageError('usage: parla accounts set-password ACCOUNT_ID [--email E] --password-stdin');
      const emailArg = typeof values.email === 'string' ? validEmail(values.email) : null;
      return withStore(config, async (store) => {
        const account = await getAccountOrFail(store, id);
        const email = emailArg ?? account.email;
        if (email === null) throw new UsageError(`account ${id} has no email yet: give one with --email`);
        await requireFreeEmail(store, email, id);
        const passwordHash = await hashPassword(await readPasswordFromStdin());
        await store.setPassword(id, email, passwordHash);
        // A new password ends every dashboard session of the account, on every node.
        const ended = await store.deleteAccountSessions(id);
        output(
          !!values.json,
          { id, email, sessions_ended: ended },
          () => `dashboard password set for ${id} (${email}); ${ended} session${ended === 1 ? '' : 's'} signed out`,
        );
        return 0;
      });
    }
    case 'zero-retention': {
      const { values, positionals } = parse(rest, {});
      const [id, state] = positionals;
      if (!id || (state !== undefined && state !== 'on' && state !== 'off'))
        throw new UsageError('usage: parla accounts zero-retention ACCOUNT_ID [on|off]');
      return withStore(config, async (store) => {
        await getAccountOrFail(store, id);
        if (state !== undefined) await store.setZeroRetention(id, state === 'on');
        const a = await getAccountOrFail(store, id);
        output(!!values.json, { id: a.id, zero_retention: a.zeroRetention }, () => `zero_retention: ${a.zeroRetention ? 'on' : 'off'}`);
        return 0;
      });
    }
    case 'webhook-secret': {
      const { values, positionals } = parse(rest, { rotate: { type: 'boolean' } });
      const id = positionals[0];
      if (!id) throw new UsageError('usage: parla accounts webhook-secret ACCOUNT_ID [--rotate]');
      return withStore(config, async (store) => {
        await getAccountOrFail(store, id);
        // The first call makes the secret; --rotate replaces it (old signatures stop verifying at once).
        if (values.rotate) await store.rotateWebhookSecret(id, newWebhookSecret());
        const secret = (await store.getWebhookSecret(id, newWebhookSecret()))!;
        output(!!values.json, { id, webhook_secret: secret, rotated: !!values.rotate }, () => secret);
        return 0;
      });
    }
    default:
      throw new UsageError(
        'usage: parla accounts create|list|show|features|zero-retention|plan|set-password|webhook-secret ... (parla help)',
      );
  }
}

export async function keysCommand(config: Config, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values } = parse(
        rest,
        { account: { type: 'string' }, name: { type: 'string' }, test: { type: 'boolean' }, 'expires-at': { type: 'string' } },
        false,
      );
      const accountId = requireString(values, 'account');
      const name = requireString(values, 'name');
      const mode: KeyMode = values.test ? 'test' : 'live';
      let expiresAt: Date | null = null;
      if (typeof values['expires-at'] === 'string') {
        expiresAt = new Date(values['expires-at']);
        if (Number.isNaN(expiresAt.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(values['expires-at']))
          throw new UsageError('--expires-at must be an ISO 8601 date-time');
        // A key that is expired at birth is never what the operator meant (a typo in the year).
        if (expiresAt.getTime() <= Date.now())
          throw new UsageError(`--expires-at ${expiresAt.toISOString()} is in the past: the key would never work`);
      }
      return withStore(config, async (store) => {
        await getAccountOrFail(store, accountId);
        const { key, rawKey } = await createApiKey(store, config, { accountId, name, mode, expiresAt });
        output(
          !!values.json,
          {
            id: key.id,
            name: key.name,
            mode: key.mode,
            prefix: key.prefix,
            expires_at: key.expiresAt?.toISOString() ?? null,
            api_key: rawKey,
          },
          () => `created key ${key.id} (${key.mode}) "${key.name}"\nAPI key (shown once): ${rawKey}`,
        );
        return 0;
      });
    }
    case 'list': {
      const { values } = parse(rest, { account: { type: 'string' } }, false);
      const accountId = requireString(values, 'account');
      return withStore(config, async (store) => {
        await getAccountOrFail(store, accountId);
        const keys = await store.listKeys(accountId);
        const rows = keys.map((k) => ({
          id: k.id,
          name: k.name,
          mode: k.mode,
          prefix: k.prefix,
          state: effectiveKeyState(k),
          created_at: k.createdAt.toISOString(),
          last_used_at: k.lastUsedAt?.toISOString() ?? null,
          expires_at: k.expiresAt?.toISOString() ?? null,
          requests: k.requests,
          credits_used: k.creditsUsed,
        }));
        output(!!values.json, rows, () =>
          rows.length
            ? rows
                .map(
                  (r) =>
                    `${r.id}  ${r.prefix}…  ${r.mode}  ${r.state}  "${r.name}"  requests=${r.requests} credits=${r.credits_used}  last_used=${r.last_used_at ?? 'never'}`,
                )
                .join('\n')
            : 'no keys',
        );
        return 0;
      });
    }
    case 'revoke':
    case 'disable':
    case 'enable': {
      const { values, positionals } = parse(rest, {});
      const keyId = positionals[0];
      if (!keyId) throw new UsageError(`usage: parla keys ${sub} KEY_ID`);
      const state = sub === 'revoke' ? 'revoked' : sub === 'disable' ? 'disabled' : 'active';
      return withStore(config, async (store) => {
        const key = await store.getKey(keyId);
        if (!key) throw new UsageError(`no key ${keyId}`);
        const ok = await store.setKeyState(keyId, state);
        if (!ok) throw new UsageError(`key ${keyId} is revoked; revocation is final`);
        output(!!values.json, { id: keyId, state }, () => `key ${keyId} is now ${state}`);
        return 0;
      });
    }
    default:
      throw new UsageError('usage: parla keys create|list|revoke|disable|enable ... (parla help)');
  }
}

export async function creditsCommand(config: Config, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'add') throw new UsageError('usage: parla credits add --account ID --amount N [--test]');
  const { values } = parse(rest, { account: { type: 'string' }, amount: { type: 'string' }, test: { type: 'boolean' } }, false);
  const accountId = requireString(values, 'account');
  const amount = optionalInt(values, 'amount');
  if (amount === undefined) throw new UsageError('--amount is required');
  const mode: KeyMode = values.test ? 'test' : 'live';
  return withStore(config, async (store) => {
    await getAccountOrFail(store, accountId);
    const balance = await store.addCredits(accountId, mode, amount);
    output(!!values.json, { account: accountId, mode, balance }, () => `${mode} balance of ${accountId}: ${balance}`);
    return 0;
  });
}
