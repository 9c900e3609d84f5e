// API keys: create (the full key is shown once), list with usage, revoke after confirmation.

import { useEffect, useRef, useState } from 'preact/hooks';
import { dashboardApi, type ApiKey, type KeyMode } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyField } from '../components/CopyField';
import { ErrorNotice } from '../components/ErrorNotice';
import { ModeSwitch } from '../components/ModeSwitch';
import { formatAgo, formatDate, formatDateTime, formatInt } from '../format';

function CreateKeyForm({ onCreated }: { onCreated: (key: ApiKey, secret: string) => void }) {
  const [name, setName] = useState('');
  const [mode, setMode] = useState<KeyMode>('live');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { key, api_key } = await dashboardApi.createKey(name.trim(), mode);
      setName('');
      onCreated(key, api_key);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card create-key" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <div class="row wrap">
        <div class="field grow">
          <label for="key-name">Name</label>
          <input
            id="key-name"
            type="text"
            required
            maxLength={100}
            placeholder="e.g. Production server"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <ModeSwitch value={mode} onChange={setMode} label="Mode" />
        </div>
        <div class="field end">
          <button type="submit" class="button" disabled={busy || name.trim() === ''}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </div>
      <p class="muted small">Live keys spend your live credits. Test keys draw on a separate test balance, for development.</p>
      <ErrorNotice error={error} />
    </form>
  );
}

function NewKey({ keyName, secret, onDone }: { keyName: string; secret: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Move focus to the new key so that screen-reader and keyboard users land on it.
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="card new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title" tabIndex={-1} ref={heading}>
        Your new key “{keyName}”
      </h2>
      <p class="notice warning">
        <strong>Copy it now: you will not see this key again.</strong> Parla keeps only a fingerprint of it. If you lose it, revoke it and
        create a new one.
      </p>
      <CopyField id="new-key-value" label="API key" value={secret} />
      <p class="muted small">
        Send it in the <code>X-API-Key</code> header from server-side code only.
      </p>
      <button type="button" class="button secondary" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}

function stateBadge(state: string) {
  return <span class={`badge state-${state}`}>{state}</span>;
}

function KeyTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke: (k: ApiKey) => void }) {
  if (keys.length === 0) return <p class="empty">No keys yet. Create one above to call the API.</p>;
  // Newest first: the key just created is where the eye lands.
  const sorted = [...keys].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  return (
    <div class="table-scroll">
      <table class="keys-table">
        <caption class="visually-hidden">Your API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Mode</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col" class="num">
              Requests
            </th>
            <th scope="col" class="num">
              Credits used
            </th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((k) => (
            <tr key={k.id} data-key-id={k.id} class={k.state === 'active' ? '' : 'inactive'}>
              <th scope="row" data-label="Name">
                {k.name}
              </th>
              <td data-label="Key">
                <code>{k.prefix}…</code>
              </td>
              <td data-label="Mode">
                <span class={`badge mode-${k.mode}`}>{k.mode}</span>
              </td>
              <td data-label="State">
                {stateBadge(k.state)}
                {k.expires_at && k.state === 'active' ? <span class="muted small"> until {formatDate(k.expires_at)}</span> : null}
              </td>
              <td data-label="Created">{formatDate(k.created_at)}</td>
              <td data-label="Last used">
                {k.last_used_at ? (
                  <time dateTime={k.last_used_at} title={formatDateTime(k.last_used_at)}>
                    {formatAgo(k.last_used_at)}
                  </time>
                ) : (
                  'Never'
                )}
              </td>
              <td data-label="Requests" class="num">
                {formatInt(k.requests)}
              </td>
              <td data-label="Credits used" class="num">
                {formatInt(k.credits_used)}
              </td>
              <td class="actions">
                {k.state !== 'revoked' && (
                  <button type="button" class="button small danger-outline" onClick={() => onRevoke(k)} aria-label={`Revoke key ${k.name}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const [status, setStatus] = useState('');

  const load = async () => {
    try {
      setKeys((await dashboardApi.keys()).keys);
      setLoadError(null);
    } catch (err) {
      setLoadError(err);
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const revoke = async () => {
    if (!revoking) return;
    setRevokeBusy(true);
    setRevokeError(null);
    try {
      const { key } = await dashboardApi.revokeKey(revoking.id);
      setKeys((list) => (list ?? []).map((k) => (k.id === key.id ? key : k)));
      setStatus(`Key “${key.name}” revoked. Requests with it are refused from now on.`);
      setRevoking(null);
    } catch (err) {
      setRevokeError(err);
    } finally {
      setRevokeBusy(false);
    }
  };

  return (
    <>
      <header class="page-head">
        <h1>API keys</h1>
        <p class="muted">Keys authenticate your requests to the speech API. Create one per application so you can revoke it alone.</p>
      </header>
      {created ? (
        <NewKey keyName={created.name} secret={created.secret} onDone={() => setCreated(null)} />
      ) : (
        <CreateKeyForm
          onCreated={(key, secret) => {
            setCreated({ name: key.name, secret });
            setKeys((list) => [key, ...(list ?? []).filter((k) => k.id !== key.id)]);
          }}
        />
      )}
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Your keys</h2>
        {/* Always rendered, so that screen readers announce the message when it appears. */}
        <div role="status">{status && <p class="notice success">{status}</p>}</div>
        <ErrorNotice error={loadError} />
        {keys === null && !loadError ? (
          <p class="muted">Loading…</p>
        ) : (
          keys && <KeyTable keys={keys} onRevoke={(k) => (setRevokeError(null), setRevoking(k))} />
        )}
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        danger
        busy={revokeBusy}
        onConfirm={() => void revoke()}
        onCancel={() => setRevoking(null)}
      >
        <p>
          <strong>{revoking?.name}</strong> (<code>{revoking?.prefix}…</code>) stops working immediately. Requests that use it will be
          refused with
          <code> AUTH_REVOKED_API_KEY</code>. This cannot be undone.
        </p>
        <ErrorNotice error={revokeError} />
      </ConfirmDialog>
    </>
  );
}
