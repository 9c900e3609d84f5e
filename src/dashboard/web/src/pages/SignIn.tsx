// Email and password sign-in. Accounts get a password from the operator's CLI
// (`parla accounts set-password`), so there is no sign-up or reset form here.

import { useEffect, useRef, useState } from 'preact/hooks';
import { dashboardApi, type Session } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const emailRef = useRef<HTMLInputElement>(null);

  useEffect(() => emailRef.current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await dashboardApi.signIn(email.trim(), password));
    } catch (err) {
      setError(err);
      setPassword('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <div class="card sign-in-card">
        <div class="brand large" aria-hidden="true">
          <Logo /> Parla
        </div>
        <h1>Sign in to your dashboard</h1>
        <p class="muted">Manage API keys, see your usage and try the voices.</p>
        <form onSubmit={submit} class="stack">
          <div class="field">
            <label for="email">Email</label>
            <input
              id="email"
              ref={emailRef}
              type="email"
              autocomplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="password">Password</label>
            <input
              id="password"
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </div>
          <ErrorNotice error={error} />
          <button type="submit" class="button wide" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <p class="muted small">
          No password yet? The operator sets one with <code>parla accounts set-password</code>.
        </p>
      </div>
    </main>
  );
}

export function Logo() {
  return (
    <svg class="logo" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" />
      <path d="M8 20v-8M12 23V9M16 19v-6M20 25V7M24 21v-10" />
    </svg>
  );
}
