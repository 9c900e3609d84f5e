// A tiny history-API router: the dashboard has five pages, which does not justify a library.
// The server answers index.html for every page path, so a reload or a shared link works.

import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

export type Page = 'sign-in' | 'keys' | 'usage' | 'jobs' | 'playground';

export const PAGES: ReadonlyArray<{ page: Exclude<Page, 'sign-in'>; label: string }> = [
  { page: 'keys', label: 'API keys' },
  { page: 'usage', label: 'Usage' },
  { page: 'jobs', label: 'Jobs' },
  { page: 'playground', label: 'Playground' },
];

export function pageFromPath(pathname: string): Page {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const name = rest.replace(/^\/+|\/+$/g, '');
  if (name === 'sign-in' || name === 'keys' || name === 'usage' || name === 'jobs' || name === 'playground') return name;
  return 'keys';
}

export const pathOf = (page: Page) => `${BASE}/${page}`;

const listeners = new Set<() => void>();

export function navigate(page: Page, opts: { replace?: boolean } = {}): void {
  const path = pathOf(page);
  if (window.location.pathname !== path) {
    if (opts.replace) window.history.replaceState(null, '', path);
    else window.history.pushState(null, '', path);
  }
  for (const l of listeners) l();
}

/** The page named by the address bar; follows navigate() and the back and forward buttons. */
export function usePage(): Page {
  const [page, setPage] = useState<Page>(() => pageFromPath(window.location.pathname));
  useEffect(() => {
    const update = () => setPage(pageFromPath(window.location.pathname));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return page;
}
