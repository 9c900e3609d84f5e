// The shell: finds the session, shows sign-in or the signed-in layout with its navigation.

import { useEffect, useRef, useState } from 'preact/hooks';
import { dashboardApi, setRequestSession, setUnauthorizedHandler, type Session } from './api';
import { ErrorNotice } from './components/ErrorNotice';
import { navigate, PAGES, pathOf, usePage, type Page } from './router';
import { JobsPage } from './pages/Jobs';
import { KeysPage } from './pages/Keys';
import { PlaygroundPage } from './pages/Playground';
import { Logo, SignIn } from './pages/SignIn';
import { UsagePage } from './pages/Usage';

const TITLES: Record<Page, string> = { 'sign-in': 'Sign in', keys: 'API keys', usage: 'Usage', jobs: 'Jobs', playground: 'Playground' };

function Layout({ session, page, onSignOut }: { session: Session; page: Exclude<Page, 'sign-in'>; onSignOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // After a navigation, focus moves to the new page (as a page load would), so that keyboard and
  // screen-reader users start at its top rather than on the link they used.
  useEffect(() => {
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [page]);
  const signOut = async () => {
    setBusy(true);
    try {
      await dashboardApi.signOut();
      onSignOut();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="topbar-inner">
          <a
            class="brand"
            href={pathOf('keys')}
            onClick={(e) => {
              e.preventDefault();
              navigate('keys');
            }}
          >
            <Logo /> Parla
          </a>
          <nav aria-label="Dashboard">
            <ul>
              {PAGES.map((p) => (
                <li key={p.page}>
                  <a
                    href={pathOf(p.page)}
                    aria-current={page === p.page ? 'page' : undefined}
                    onClick={(e) => {
                      // Ordinary clicks stay in the page; modified clicks open a tab as usual.
                      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                      e.preventDefault();
                      navigate(p.page);
                    }}
                  >
                    {p.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="account">
            <span class="account-name" title={session.account.email}>
              {session.account.name} <span class="badge plan">{session.account.plan}</span>
            </span>
            <button type="button" class="button secondary small" onClick={() => void signOut()} disabled={busy}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" class="content" tabIndex={-1} ref={main}>
        <ErrorNotice error={error} />
        {page === 'keys' && <KeysPage />}
        {page === 'usage' && <UsagePage />}
        {page === 'jobs' && <JobsPage />}
        {page === 'playground' && <PlaygroundPage plan={session.account.plan} />}
      </main>
    </>
  );
}

export function App() {
  const page = usePage();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);

  const adopt = (s: Session | null) => {
    setRequestSession(s);
    setSession(s);
  };

  useEffect(() => {
    setUnauthorizedHandler(() => adopt(null));
    dashboardApi.session().then(adopt, setError);
  }, []);

  // Keep the address bar honest: signed out is always /dashboard/sign-in, and signing in leaves
  // it for the page the person was on (or opened a link to) when the session was missing.
  const returnTo = useRef<Exclude<Page, 'sign-in'>>('keys');
  useEffect(() => {
    if (session === null && page !== 'sign-in') {
      returnTo.current = page;
      navigate('sign-in', { replace: true });
    }
    if (session && page === 'sign-in') {
      navigate(returnTo.current, { replace: true });
      returnTo.current = 'keys';
    }
  }, [session, page]);

  useEffect(() => {
    document.title = `${TITLES[page]} · Parla dashboard`;
  }, [page]);

  if (error) {
    return (
      <main id="main" class="sign-in">
        <ErrorNotice error={error} />
      </main>
    );
  }
  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={adopt} />;
  return (
    <Layout
      session={session}
      page={page === 'sign-in' ? returnTo.current : page}
      onSignOut={() => {
        // A deliberate sign-out: the next sign-in starts on the keys page.
        navigate('sign-in');
        adopt(null);
      }}
    />
  );
}
