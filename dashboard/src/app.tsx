import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createApiClient } from './api.ts';
import { Layout } from './components/Layout.tsx';
import { ErrorNotice, Notice } from './components/Notice.tsx';
import { PageHeading } from './components/PageHeading.tsx';
import { RetryButton } from './components/RetryButton.tsx';
import { AccountPage } from './pages/AccountPage.tsx';
import { ContractPage } from './pages/ContractPage.tsx';
import { KeysPage } from './pages/KeysPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { PlaygroundPage } from './pages/PlaygroundPage.tsx';
import { SignInPage } from './pages/SignInPage.tsx';
import { UsagePage } from './pages/UsagePage.tsx';
import { WebhooksPage } from './pages/WebhooksPage.tsx';
import { navigate, useRoute } from './router.ts';
import type { Session } from './types.ts';

type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; reason: string | null }
  | { status: 'signed-in'; session: Session }
  /** The session could not be read (the gateway failed, the network): not a sign-out, the cookie may be good. */
  | { status: 'unknown'; error: unknown; retrying: boolean };

/**
 * Holds the session: loads it once, sends every page without one to sign-in, and ends it on any 401
 * (a revoked session, an expired one, or a ban in the organisation).
 */
export function App() {
  const route = useRoute();
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  // Read during the first render, before any effect: the sign-in page's effect spends the link and
  // removes the fragment, and whichever effect runs first, the session check must not race the sign-in.
  const [openedWithLink] = useState(() => route === 'sign-in' && location.hash.includes('token='));
  const api = useMemo(
    () =>
      createApiClient(() => {
        setState({ status: 'signed-out', reason: 'Your session has ended. Please sign in again.' });
        navigate('sign-in', true);
      }),
    [],
  );

  async function loadSession(): Promise<void> {
    try {
      const session = await api.get<Session>('/session');
      api.setCsrfToken(session.csrf_token);
      setState({ status: 'signed-in', session });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        api.setCsrfToken(null);
        setState({ status: 'signed-out', reason: null });
        if (route !== 'sign-in') navigate('sign-in', true);
      } else {
        // only a 401 ends the session (docs/dashboard-ui.md): a failing gateway is said, and retried on
        // request; a refresh of a session already held (after a password change) keeps it
        setState((s) => (s.status === 'signed-in' ? s : { status: 'unknown', error: e, retrying: false }));
      }
    }
  }

  useEffect(() => {
    // A sign-in link carries its token in the fragment: the sign-in page spends it, then loads the session.
    if (openedWithLink) setState({ status: 'signed-out', reason: null });
    else void loadSession();
  }, []);

  useEffect(() => {
    if (state.status === 'signed-out' && route !== 'sign-in') navigate('sign-in', true);
  }, [state.status, route]);

  const session = state.status === 'signed-in' ? state.session : null;

  let page;
  if (route === 'sign-in') {
    page = (
      <SignInPage
        api={api}
        reason={state.status === 'signed-out' ? state.reason : null}
        signedIn={session !== null}
        onSignedIn={async () => {
          await loadSession();
          navigate('contract', true);
        }}
      />
    );
  } else if (state.status === 'unknown') {
    const retry = () => {
      setState({ ...state, retrying: true });
      void loadSession();
    };
    page = (
      <>
        <PageHeading title="Not available">The dashboard is not available just now</PageHeading>
        {/* gone while retrying, so that a retry failing the same way is a new alert, announced again */}
        {!state.retrying && <ErrorNotice error={state.error} />}
        <p>
          <RetryButton busy={state.retrying} onRetry={retry} />
        </p>
      </>
    );
  } else if (!session) {
    page = <Notice kind="info">Loading…</Notice>;
  } else if (route === 'contract') page = <ContractPage api={api} />;
  else if (route === 'keys') page = <KeysPage api={api} />;
  else if (route === 'usage') page = <UsagePage api={api} />;
  else if (route === 'playground') page = <PlaygroundPage api={api} />;
  else if (route === 'webhooks') page = <WebhooksPage api={api} />;
  else if (route === 'account')
    page = (
      <AccountPage
        api={api}
        session={session}
        onPasswordSet={() => void loadSession()}
        onSignedOut={() => {
          api.setCsrfToken(null);
          setState({ status: 'signed-out', reason: 'You have signed out.' });
          navigate('sign-in', true);
        }}
      />
    );
  else page = <NotFoundPage />;

  return (
    <Layout route={route} session={session}>
      {page}
    </Layout>
  );
}
