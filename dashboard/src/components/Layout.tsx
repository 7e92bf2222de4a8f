import type { ComponentChildren } from 'preact';
import type { Route } from '../router.ts';
import type { Session } from '../types.ts';
import { Link } from './Link.tsx';

const NAV: { to: Exclude<Route, 'not-found' | 'sign-in'>; label: string }[] = [
  { to: 'contract', label: 'Contract' },
  { to: 'keys', label: 'Keys' },
  { to: 'usage', label: 'Usage' },
  { to: 'playground', label: 'Playground' },
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'account', label: 'Account' },
];

/** Skip link, banner with the organisation and the navigation, then the page in <main>. */
export function Layout({ route, session, children }: { route: Route; session: Session | null; children: ComponentChildren }) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="banner">
        <div class="banner-inner">
          <p class="brand">
            <span class="brand-name">Vehicle images</span>
            {session && <span class="brand-org">{session.organization.name}</span>}
          </p>
          {session && (
            <nav aria-label="Dashboard">
              <ul class="nav">
                {NAV.map((n) => (
                  <li key={n.to}>
                    <Link to={n.to} current={route === n.to}>
                      {n.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          )}
        </div>
      </header>
      <main id="main" class="main" tabIndex={-1}>
        {children}
      </main>
      <footer class="footer">
        <p>
          {session ? `Signed in as ${session.member.email}` : 'Not signed in'} · <a href="/docs">API reference</a>
        </p>
      </footer>
    </>
  );
}
